package pdu

import "fmt"

// CountWhole is countWholePdus: how many PDUs frame holds, when it must hold
// whole PDUs only (what the kiosk sends), and the direction's mode after it
// (the client's first TPKT ends NLA). maxPduBytes 0 is the default 64 KiB.
// A frame that ends inside a PDU is a pdu-invalid FramingError; offsets are
// the frame's own. It makes nothing unless it fails.
func CountWhole(frame []byte, mode Mode, maxPduBytes int) (count int, next Mode, err error) {
	next, err = eachWhole(frame, mode, maxPduBytes, func([]byte) { count++ })
	return count, next, err
}

// SplitWhole is splitWholePdus: the PDUs of frame, as slices of it.
func SplitWhole(frame []byte, mode Mode, maxPduBytes int) ([][]byte, Mode, error) {
	var pdus [][]byte
	next, err := eachWhole(frame, mode, maxPduBytes, func(pdu []byte) { pdus = append(pdus, pdu) })
	if err != nil {
		return nil, mode, err
	}
	return pdus, next, nil
}

// eachWhole walks frame PDU by PDU, handing each to visit as a slice of
// frame, and returns the mode after the last; on a framing error, the mode it
// was given. visit does not escape, so a walk that only counts makes nothing.
func eachWhole(frame []byte, mode Mode, maxPduBytes int, visit func(pdu []byte)) (Mode, error) {
	limit := maxPduBytes
	if limit == 0 {
		limit = DefaultMaxPduBytes
	}
	position := 0
	current := mode
	for position < len(frame) {
		length, ferr := ReadLength(frame[position:], current, limit, int64(position))
		if ferr != nil {
			return mode, ferr
		}
		if length < 0 || position+length > len(frame) {
			return mode, endsInside(frame, position, current, limit)
		}
		visit(frame[position : position+length])
		current = ModeAfter(current, frame[position])
		position += length
	}
	return current, nil
}

func endsInside(frame []byte, position int, mode Mode, maxPduBytes int) *FramingError {
	what := "a pdu header"
	if length, _ := ReadLength(frame[position:], mode, maxPduBytes, int64(position)); length >= 0 {
		what = fmt.Sprintf("a %d-byte %s pdu", length, Kind(frame[position], mode))
	}
	return &FramingError{
		Code:    CodePduInvalid,
		Message: fmt.Sprintf("frame of %d bytes ends inside %s that starts at offset %d", len(frame), what, position),
		Offset:  int64(position),
	}
}
