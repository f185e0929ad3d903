package main

import (
	"fmt"
	"sync"

	"github.com/lanterna/loadtest-generator/internal/loadwire"
	"lanterna/dataplane/pdu"
)

// responder turns what one connection read into what it writes back: the
// echo host's answering rules (loadtest/src/echoHost.ts), without sockets.
// The returned bytes stay valid until the next call; on the hot path (a
// request arriving whole) no call allocates.
type responder interface {
	answer(chunk []byte) ([]byte, error)
}

// echoResponder sends every chunk back as it came: no parsing at all.
type echoResponder struct{}

func (echoResponder) answer(chunk []byte) ([]byte, error) { return chunk, nil }

// replyResponder answers each request PDU with one PDU of a fixed size
// (`--reply-bytes`, KW v2.2's 1669-byte answers to 25-byte requests).
type replyResponder struct {
	reply   []byte
	counter pdu.StreamCounter
	out     []byte
}

func (r *replyResponder) answer(chunk []byte) ([]byte, error) {
	n, err := r.counter.Push(chunk)
	if err != nil {
		return nil, err
	}
	if n <= 1 {
		return r.reply[:n*len(r.reply)], nil
	}
	r.out = r.out[:0]
	for range n {
		r.out = append(r.out, r.reply...)
	}
	return r.out, nil
}

// sizedResponder answers each request with a PDU of the size it names
// (loadwire.RequestedReplyBytes; 0: the request echoed), so one echo host
// serves mixed traffic (`--sized-replies`). Whole PDUs are read in place;
// only a PDU split across reads is gathered into `partial`.
type sizedResponder struct {
	partial []byte
	// the length of the PDU in `partial` once its header is in, else 0
	partialLength int
	out           []byte
	// the answer while it is the read's only one, so one PDU per read copies nothing
	single []byte
	count  int
}

func (s *sizedResponder) answer(chunk []byte) ([]byte, error) {
	s.count, s.single, s.out = 0, nil, s.out[:0]
	for len(chunk) > 0 {
		if len(s.partial) > 0 {
			taken, err := s.fillPartial(chunk)
			if err != nil {
				return nil, err
			}
			chunk = chunk[taken:]
			if s.partialLength == 0 || len(s.partial) < s.partialLength {
				continue
			}
			if err := s.emit(s.partial, true); err != nil {
				return nil, err
			}
			s.partial, s.partialLength = s.partial[:0], 0
			continue
		}
		length, complete, err := headerLength(chunk[:min(4, len(chunk))])
		if err != nil {
			return nil, err
		}
		if !complete || length > len(chunk) {
			// the PDU goes on in a later read
			s.partial = append(s.partial, chunk...)
			if complete {
				s.partialLength = length
			}
			break
		}
		if err := s.emit(chunk[:length], false); err != nil {
			return nil, err
		}
		chunk = chunk[length:]
	}
	if s.single != nil {
		return s.single, nil
	}
	return s.out, nil
}

// fillPartial moves bytes of the PDU in progress from chunk into `partial`:
// header bytes one at a time until its length is known, then the rest.
func (s *sizedResponder) fillPartial(chunk []byte) (int, error) {
	taken := 0
	for s.partialLength == 0 && taken < len(chunk) {
		s.partial = append(s.partial, chunk[taken])
		taken++
		length, complete, err := headerLength(s.partial)
		if err != nil {
			return taken, err
		}
		if complete {
			s.partialLength = length
		}
	}
	if s.partialLength == 0 {
		return taken, nil
	}
	more := min(s.partialLength-len(s.partial), len(chunk)-taken)
	s.partial = append(s.partial, chunk[taken:taken+more]...)
	return taken + more, nil
}

// emit adds one request's answer. An echo of a PDU gathered in `partial` is
// copied at once: `partial` is reused for the next PDU in the same read.
func (s *sizedResponder) emit(pdu []byte, fromPartial bool) error {
	answer, copyNow := pdu, fromPartial
	if size := loadwire.RequestedReplyBytes(pdu); size != 0 {
		reply, err := replyOfSize(size)
		if err != nil {
			return err
		}
		answer, copyNow = reply, false
	}
	s.count++
	if s.count == 1 && !copyNow {
		s.single = answer
		return nil
	}
	if s.single != nil {
		s.out = append(s.out, s.single...)
		s.single = nil
	}
	s.out = append(s.out, answer...)
	return nil
}

// Replies of one size are built once, shared by every connection (read-only).
var replies sync.Map

func replyOfSize(size int) ([]byte, error) {
	if cached, ok := replies.Load(size); ok {
		return cached.([]byte), nil
	}
	pdu, err := loadwire.BuildTpktPdu(size)
	if err != nil {
		return nil, fmt.Errorf("requested reply: %w", err)
	}
	cached, _ := replies.LoadOrStore(size, pdu)
	return cached.([]byte), nil
}

// headerLength: the whole length of the PDU that starts at b[0] by the data
// plane's rules, once its header is in (complete false before).
func headerLength(b []byte) (length int, complete bool, err error) {
	length, failure := pdu.ReadLength(b, pdu.ModeRDP, pdu.LargestAllowedLimit, 0)
	if failure != nil {
		return 0, false, failure
	}
	return length, length >= 0, nil
}
