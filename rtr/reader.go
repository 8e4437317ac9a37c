package rtr

import (
	"encoding/binary"
	"fmt"
	"io"
)

// Reader reads PDUs from a stream, one buffer reused.
type Reader struct {
	r   io.Reader
	buf []byte
}

// NewReader reads PDUs from r.
func NewReader(r io.Reader) *Reader { return &Reader{r: r, buf: make([]byte, 64)} }

// Read returns the next PDU. A *DecodeError says which Error Report the PDU
// calls for; when it is Fatal the stream is out of step and must be closed.
// Other errors are the stream's (io.EOF at a PDU boundary).
func (r *Reader) Read() (PDU, error) {
	if _, err := io.ReadFull(r.r, r.buf[:headerLen]); err != nil {
		return PDU{}, err
	}
	n := binary.BigEndian.Uint32(r.buf[4:])
	if n < headerLen || n > MaxPDULen {
		raw := append([]byte(nil), r.buf[:headerLen]...)
		return PDU{}, &DecodeError{Code: ErrCorruptData, PDU: raw, Fatal: true,
			Msg: fmt.Sprintf("PDU length %d (expected %d to %d)", n, headerLen, MaxPDULen)}
	}
	if int(n) > cap(r.buf) {
		r.buf = append(r.buf[:headerLen], make([]byte, int(n)-headerLen)...)
	}
	raw := r.buf[:n]
	if _, err := io.ReadFull(r.r, raw[headerLen:]); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return PDU{}, err
	}
	return Parse(raw)
}
