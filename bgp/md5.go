package bgp

import (
	"errors"
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// ErrNoTCPMD5 means the kernel cannot sign TCP segments (RFC 2385): a
// neighbor with a password would never get a session.
var ErrNoTCPMD5 = errors.New("this kernel does not support TCP MD5 signatures (TCP_MD5SIG)")

// probeTCPMD5 checks that the kernel accepts a TCP_MD5SIG key on a socket.
func probeTCPMD5() error {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("probing TCP MD5 support: %w", err)
	}
	defer l.Close()
	raw, err := l.(*net.TCPListener).SyscallConn()
	if err != nil {
		return fmt.Errorf("probing TCP MD5 support: %w", err)
	}
	var serr error
	err = raw.Control(func(fd uintptr) {
		sig := unix.TCPMD5Sig{Keylen: 4}
		sig.Addr.Family = unix.AF_INET
		copy(sig.Key[:], "test")
		serr = unix.SetsockoptTCPMD5Sig(int(fd), unix.IPPROTO_TCP, unix.TCP_MD5SIG, &sig)
	})
	if err == nil {
		err = serr
	}
	if errors.Is(err, unix.ENOPROTOOPT) || errors.Is(err, unix.EOPNOTSUPP) {
		return ErrNoTCPMD5
	}
	return err
}

// checkPasswords fails early when a password is configured but cannot work.
func (c Config) checkPasswords() error {
	var who string
	for _, n := range c.Neighbors {
		if n.Password != "" {
			who = "neighbor " + n.Address.String()
		}
	}
	for _, d := range c.Dynamic {
		if d.Password != "" {
			who = "dynamic range " + d.Prefix.String()
		}
	}
	if who == "" {
		return nil
	}
	if err := probeTCPMD5(); err != nil {
		return fmt.Errorf("bgp: %s has a TCP MD5 password, but %w", who, err)
	}
	return nil
}
