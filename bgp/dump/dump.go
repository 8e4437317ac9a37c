// Package dump reads route dumps taken from routers into the validator's Route
// model: GoBGP JSON, FRR JSON, BIRD's "show route all" text and MRT
// TABLE_DUMP_V2 files (plain, gzip or bzip2). Formats are detected from the
// content. Errors name the file and the line or JSON path.
package dump

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/routewarden/routewarden/validator"
)

// Formats lists the formats ReadFile accepts besides "auto".
var Formats = []string{"gobgp", "frr", "bird", "mrt"}

// ReadFile reads a route dump; format is "auto" or one of Formats. It returns
// the routes and the format it read.
func ReadFile(path, format string, opts ...Option) ([]validator.Route, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", fmt.Errorf("reading routes: %w", err)
	}
	defer f.Close()
	return ReadStream(path, f, format, opts...)
}

// ReadStream reads a route dump from an open stream (a file, standard input),
// unpacking gzip and bzip2; name is used in errors.
func ReadStream(name string, rd io.Reader, format string, opts ...Option) ([]validator.Route, string, error) {
	r, err := decompress(bufio.NewReaderSize(rd, 1<<20))
	if err != nil {
		return nil, "", fmt.Errorf("reading routes from %s: %w", name, err)
	}
	return Read(name, r, format, opts...)
}

// peek returns the first n bytes (fewer at the end of the input); an error
// other than the end of the input (a directory, an I/O error) is returned.
func peek(r *bufio.Reader, n int) ([]byte, error) {
	head, err := r.Peek(n)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return head, err
	}
	return head, nil
}

// Read reads a route dump from r; name is used in errors.
func Read(name string, r *bufio.Reader, format string, opts ...Option) ([]validator.Route, string, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	head, err := peek(r, 4096)
	if err != nil {
		return nil, "", fmt.Errorf("reading routes from %s: %w", name, err)
	}
	if err := sniff(name, head); err != nil {
		return nil, "", err
	}
	if format == "" || format == "auto" {
		format = Detect(head)
		if format == "" {
			if len(bytes.TrimSpace(head)) == 0 {
				// An empty dump is a valid observation: nothing is announced.
				return nil, "empty", nil
			}
			return nil, "", fmt.Errorf("%s: cannot tell the route format (expected GoBGP or FRR JSON, BIRD "+
				"'show route all' text or an MRT file); set --routes-format", name)
		}
	}
	var routes []validator.Route
	switch format {
	case "gobgp":
		routes, err = readGoBGP(name, r)
	case "frr":
		routes, err = readFRR(name, r, o)
	case "bird":
		routes, err = readBIRD(name, r)
	case "mrt":
		routes, err = readMRT(name, r)
	default:
		return nil, "", fmt.Errorf("unknown route format %q (expected auto, %s)", format, strings.Join(Formats, ", "))
	}
	validator.ShareAttributes(routes)
	return routes, format, err
}

// Detect guesses the format from the first bytes of a dump; "" when unknown.
func Detect(head []byte) string {
	if isMRTHeader(head) {
		return "mrt"
	}
	trimmed := bytes.TrimSpace(head)
	switch {
	case len(trimmed) == 0:
		return ""
	case trimmed[0] == '{' || trimmed[0] == '[':
		if bytes.Contains(head, []byte(`"vrfId"`)) || bytes.Contains(head, []byte(`"peerId"`)) ||
			bytes.Contains(head, []byte(`"routerId"`)) || bytes.Contains(head, []byte(`"routes"`)) ||
			bytes.Contains(head, []byte(`"bgpTableVersion"`)) {
			return "frr"
		}
		return "gobgp"
	case bytes.HasPrefix(trimmed, []byte("Table ")) || bytes.HasPrefix(trimmed, []byte("BIRD ")) ||
		birdRouteLine.Match(firstLine(trimmed)):
		return "bird"
	}
	return ""
}

func firstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i]
	}
	return b
}

func decompress(r *bufio.Reader) (*bufio.Reader, error) {
	magic, err := peek(r, 3)
	if err != nil {
		return nil, err
	}
	switch {
	case bytes.HasPrefix(magic, []byte{0x1f, 0x8b}):
		gz, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("reading gzip: %w", err)
		}
		return bufio.NewReaderSize(gz, 1<<20), nil
	case bytes.HasPrefix(magic, []byte("BZh")):
		return bufio.NewReaderSize(bzip2.NewReader(r), 1<<20), nil
	}
	return r, nil
}

// lineAt returns the 1-based line of a byte offset in data.
func lineAt(data []byte, offset int64) int {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	return bytes.Count(data[:offset], []byte{'\n'}) + 1
}
