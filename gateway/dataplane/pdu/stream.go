package pdu

import "fmt"

// StreamCounter counts whole PDUs in a chunked stream of one mode, keeping
// nothing but the header bytes of the PDU in progress: the Go twin of the
// protocol package's PduStreamCounter. The load test's programs count a
// relay's PDUs with it without holding their bytes. Its zero value counts
// ModeRDP PDUs up to the largest a TPKT can say.
type StreamCounter struct {
	mode        Mode
	maxPduBytes int
	header      [MaxHeaderBytes]byte
	headerLen   int
	remaining   int // bytes still to come of the PDU whose header was read
	offset      int64
}

// NewStreamCounter counts PDUs of `mode` up to maxPduBytes each.
func NewStreamCounter(mode Mode, maxPduBytes int) *StreamCounter {
	return &StreamCounter{mode: mode, maxPduBytes: maxPduBytes}
}

// Push returns how many PDUs the chunk completed; an error is the framing
// error of the header that broke the stream.
func (c *StreamCounter) Push(chunk []byte) (int, error) {
	completed := 0
	for len(chunk) > 0 {
		if c.remaining > 0 {
			take := min(c.remaining, len(chunk))
			c.remaining -= take
			c.offset += int64(take)
			chunk = chunk[take:]
			if c.remaining == 0 {
				completed++
			}
			continue
		}
		c.header[c.headerLen] = chunk[0]
		c.headerLen++
		chunk = chunk[1:]
		maxPduBytes := c.maxPduBytes
		if maxPduBytes == 0 {
			maxPduBytes = LargestAllowedLimit
		}
		length, failure := ReadLength(c.header[:c.headerLen], c.mode, maxPduBytes, c.offset)
		if failure != nil {
			return completed, failure
		}
		if length < 0 {
			continue
		}
		c.offset += int64(c.headerLen)
		c.remaining = length - c.headerLen
		c.headerLen = 0
		if c.remaining == 0 {
			completed++
		}
	}
	return completed, nil
}

// AtBoundary reports that no PDU is in progress.
func (c *StreamCounter) AtBoundary() bool { return c.remaining == 0 && c.headerLen == 0 }

// FirstPduReader collects the first PDU of a stream (a handshake's X.224
// request or confirm) from its chunks under a size cap, and keeps what
// followed it.
type FirstPduReader struct {
	buf []byte
	// Max is the largest PDU accepted, header included.
	Max int
}

// Push returns the PDU and the bytes after it once the PDU is complete.
func (r *FirstPduReader) Push(chunk []byte) (pdu, rest []byte, done bool, err error) {
	r.buf = append(r.buf, chunk...)
	length, failure := ReadLength(r.buf, ModeRDP, r.Max, 0)
	if failure != nil {
		return nil, nil, false, failure
	}
	if length < 0 {
		if len(r.buf) > r.Max {
			return nil, nil, false, fmt.Errorf("first pdu over %d bytes", r.Max)
		}
		return nil, nil, false, nil
	}
	if len(r.buf) < length {
		return nil, nil, false, nil
	}
	return r.buf[:length], r.buf[length:], true, nil
}
