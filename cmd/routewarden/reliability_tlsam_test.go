package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/routewarden/routewarden/internal/testam"
)

// tlsAMUser and tlsAMPassword are the basic-auth credentials the TLS
// Alertmanager accepts; tlsAMHash is the password's bcrypt hash (cost 4,
// made with Python's crypt.crypt and METHOD_BLOWFISH), as its web config needs.
const (
	tlsAMUser     = "routewarden"
	tlsAMPassword = "am-Sekr1t-pw-4f9d"
	tlsAMHash     = "$2b$04$XjNQvT23ou5jsC5zRcAvpuG/MVs5s7uSdIk02ndVW7tm41Tm.YU5W"
)

// tlsPKI is a CA with a server certificate for 127.0.0.1 and a client
// certificate, written as PEM files.
type tlsPKI struct {
	CA, ServerCert, ServerKey, ClientCert, ClientKey string
}

func newTLSPKI(t *testing.T) tlsPKI {
	t.Helper()
	dir := t.TempDir()
	caKey := relKey(t)
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "reliability test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour), IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ = x509.ParseCertificate(caDER)
	p := tlsPKI{CA: filepath.Join(dir, "ca.crt")}
	relWritePEM(t, p.CA, "CERTIFICATE", caDER)
	issue := func(name string, serial int64, usage x509.ExtKeyUsage, ips []net.IP) (string, string) {
		key := relKey(t)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage}, IPAddresses: ips}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		keyDER, err := x509.MarshalECPrivateKey(key)
		if err != nil {
			t.Fatal(err)
		}
		cert, keyFile := filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key")
		relWritePEM(t, cert, "CERTIFICATE", der)
		relWritePEM(t, keyFile, "EC PRIVATE KEY", keyDER)
		return cert, keyFile
	}
	p.ServerCert, p.ServerKey = issue("server", 2, x509.ExtKeyUsageServerAuth, []net.IP{net.ParseIP("127.0.0.1")})
	p.ClientCert, p.ClientKey = issue("client", 3, x509.ExtKeyUsageClientAuth, nil)
	return p
}

func relKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func relWritePEM(t *testing.T, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// startTLSAM starts a real Alertmanager serving HTTPS (its
// --web.config.file): a server certificate from the test CA, client
// certificates required and verified against it, and basic auth.
func startTLSAM(t *testing.T, pki tlsPKI) *testam.Alertmanager {
	t.Helper()
	pool := x509.NewCertPool()
	caPEM, err := os.ReadFile(pki.CA)
	if err != nil {
		t.Fatal(err)
	}
	pool.AppendCertsFromPEM(caPEM)
	cert, err := tls.LoadX509KeyPair(pki.ClientCert, pki.ClientKey)
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}}}
	t.Cleanup(tr.CloseIdleConnections)
	return testam.StartWeb(t, "", testam.Web{TLS: true, Username: tlsAMUser, Password: tlsAMPassword,
		Client: &http.Client{Timeout: 10 * time.Second, Transport: tr},
		Config: fmt.Sprintf("tls_server_config:\n  cert_file: %s\n  key_file: %s\n"+
			"  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: %s\n"+
			"basic_auth_users:\n  %s: %s\n", pki.ServerCert, pki.ServerKey, pki.CA, tlsAMUser, tlsAMHash)})
}
