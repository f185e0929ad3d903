// Command pdu-check runs inputs through pdu and prints what it made
// of each, for the differential test that holds the Go rules to the
// TypeScript ones (gateway/test/dataplane/framerParity.test.ts).
//
// Input on stdin, one case after another: a little-endian u32 length and a
// JSON header, then a u32 length and the payload bytes. Headers:
//
//	{"op":"frame","mode":"rdp","maxPduBytes":0,"maxFrameBytes":0,"cuts":[…],"setModes":[[chunk,"rdp"],…]}
//	{"op":"count","mode":"nla","maxPduBytes":0}
//	{"op":"x224-request"} / {"op":"x224-confirm"}
//	{"op":"certificate"}
//
// Output: one JSON line per case, in order (see the verdict types below).
package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"lanterna/dataplane/pdu"
)

type header struct {
	Op            string  `json:"op"`
	Mode          string  `json:"mode"`
	MaxPduBytes   int     `json:"maxPduBytes"`
	MaxFrameBytes int     `json:"maxFrameBytes"`
	Cuts          []int   `json:"cuts"`
	SetModes      [][]any `json:"setModes"`
}

type framingError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Offset  int64  `json:"offset"`
}

type stats struct {
	Pdus        uint64 `json:"pdus"`
	Bytes       uint64 `json:"bytes"`
	Batches     uint64 `json:"batches"`
	Copies      uint64 `json:"copies"`
	CopiedBytes uint64 `json:"copiedBytes"`
}

// frameVerdict: every batch as [chunk index, bytes, pdus]; the error and the chunk it came with (-1: none).
type frameVerdict struct {
	Batches  [][3]int      `json:"batches"`
	Error    *framingError `json:"error"`
	FailedAt int           `json:"failedAt"`
	Stats    stats         `json:"stats"`
	Buffered int           `json:"buffered"`
	Offset   int64         `json:"offset"`
	Mode     string        `json:"mode"`
	// ContentOk: the batches concatenate to the stream's first bytes.
	ContentOk bool `json:"contentOk"`
}

type countVerdict struct {
	Count int           `json:"count"`
	Mode  string        `json:"mode"`
	Error *framingError `json:"error"`
}

type requestVerdict struct {
	RequestedProtocols uint32  `json:"requestedProtocols"`
	Error              *string `json:"error"`
}

type confirmVerdict struct {
	Kind             string  `json:"kind"`
	SelectedProtocol uint32  `json:"selectedProtocol"`
	Flags            uint8   `json:"flags"`
	FailureCode      uint32  `json:"failureCode"`
	Error            *string `json:"error"`
}

type certificateVerdict struct {
	PublicKey   string  `json:"publicKey"`
	Fingerprint string  `json:"fingerprint"`
	Error       *string `json:"error"`
}

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	encoder := json.NewEncoder(out)
	for {
		head, err := readBlock(in)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fail(err)
		}
		payload, err := readBlock(in)
		if err != nil {
			fail(fmt.Errorf("a case without its payload: %w", err))
		}
		var h header
		if err := json.Unmarshal(head, &h); err != nil {
			fail(fmt.Errorf("case header: %w", err))
		}
		verdict, err := run(h, payload)
		if err != nil {
			fail(err)
		}
		if err := encoder.Encode(verdict); err != nil {
			fail(err)
		}
	}
	if err := out.Flush(); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "pdu-check: %v\n", err)
	os.Exit(2)
}

func readBlock(in io.Reader) ([]byte, error) {
	var length uint32
	if err := binary.Read(in, binary.LittleEndian, &length); err != nil {
		return nil, err
	}
	block := make([]byte, length)
	if _, err := io.ReadFull(in, block); err != nil {
		return nil, err
	}
	return block, nil
}

func mode(name string) (pdu.Mode, error) {
	m, ok := pdu.ParseMode(name)
	if !ok {
		return 0, fmt.Errorf("unknown mode %q", name)
	}
	return m, nil
}

func asFramingError(err error) *framingError {
	var framing *pdu.FramingError
	if errors.As(err, &framing) {
		return &framingError{framing.Code, framing.Message, framing.Offset}
	}
	return &framingError{"not-a-framing-error", err.Error(), -1}
}

func message(err error) *string {
	if err == nil {
		return nil
	}
	text := err.Error()
	return &text
}

func run(h header, payload []byte) (any, error) {
	switch h.Op {
	case "frame":
		return frame(h, payload)
	case "count":
		m, err := mode(h.Mode)
		if err != nil {
			return nil, err
		}
		count, next, err := pdu.CountWhole(payload, m, h.MaxPduBytes)
		if err != nil {
			return countVerdict{Count: 0, Mode: m.String(), Error: asFramingError(err)}, nil
		}
		return countVerdict{Count: count, Mode: next.String()}, nil
	case "x224-request":
		protocols, err := pdu.ParseConnectionRequest(payload)
		return requestVerdict{protocols, message(err)}, nil
	case "x224-confirm":
		confirm, err := pdu.ParseConnectionConfirm(payload)
		return confirmVerdict{confirm.Kind, confirm.SelectedProtocol, confirm.Flags, confirm.FailureCode, message(err)}, nil
	case "certificate":
		key, err := pdu.SubjectPublicKey(payload)
		return certificateVerdict{base64.StdEncoding.EncodeToString(key), pdu.Sha256Fingerprint(payload), message(err)}, nil
	}
	return nil, fmt.Errorf("unknown op %q", h.Op)
}

func frame(h header, stream []byte) (frameVerdict, error) {
	m, err := mode(h.Mode)
	if err != nil {
		return frameVerdict{}, err
	}
	framer, err := pdu.NewFramerLimits(m, h.MaxPduBytes, h.MaxFrameBytes)
	if err != nil {
		return frameVerdict{}, err
	}
	defer framer.Release()
	setModes := map[int]pdu.Mode{}
	for _, pair := range h.SetModes {
		index, _ := pair[0].(float64)
		name, _ := pair[1].(string)
		if setModes[int(index)], err = mode(name); err != nil {
			return frameVerdict{}, err
		}
	}
	verdict := frameVerdict{Batches: [][3]int{}, FailedAt: -1}
	var emitted bytes.Buffer
	start := 0
	ends := append(append([]int(nil), h.Cuts...), len(stream))
	for index, end := range ends {
		if end < start || end > len(stream) {
			return frameVerdict{}, fmt.Errorf("cut %d outside %d..%d", end, start, len(stream))
		}
		if next, ok := setModes[index]; ok {
			framer.SetMode(next)
		}
		err := framer.Push(stream[start:end], func(batch []byte, pdus int) {
			verdict.Batches = append(verdict.Batches, [3]int{index, len(batch), pdus})
			emitted.Write(batch)
		})
		if err != nil {
			verdict.Error = asFramingError(err)
			verdict.FailedAt = index
			break
		}
		start = end
	}
	s := framer.Stats()
	verdict.Stats = stats{s.Pdus, s.Bytes, s.Batches, s.Copies, s.CopiedBytes}
	verdict.Buffered = framer.BufferedBytes()
	verdict.Offset = framer.Offset()
	verdict.Mode = framer.Mode().String()
	verdict.ContentOk = emitted.Len() <= len(stream) && bytes.Equal(emitted.Bytes(), stream[:emitted.Len()])
	return verdict, nil
}
