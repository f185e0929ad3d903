package pdu

import "fmt"

// Stats are a Framer's counters (PduFramerStats).
type Stats struct {
	// Pdus and Bytes: whole PDUs handed out.
	Pdus, Bytes uint64
	// Batches: frames handed out.
	Batches uint64
	// Copies and CopiedBytes: PDUs that straddled chunks and were copied into one buffer.
	Copies, CopiedBytes uint64
}

type span struct {
	data []byte
	pdus int
}

// Framer splits the server-to-kiosk byte stream into whole PDUs and hands
// them out as coalesced frames, as PduFramer.takeWhole and pushBatches do
// together. Sans-I/O: the caller pushes what a socket read gave it and sends
// what comes back. PDUs wholly inside a chunk are handed out as slices of it;
// only a PDU that straddles chunks is copied, and only its bytes. A Framer is
// not safe for concurrent use.
type Framer struct {
	mode          Mode
	maxPduBytes   int
	maxFrameBytes int
	// head holds the start of a PDU whose header has not all arrived (under MaxHeaderBytes).
	head    [MaxHeaderBytes]byte
	headLen int
	// pending holds a straddling PDU once its length is known: len(pending)
	// bytes so far, pendingLength in all.
	pending       *[]byte
	pendingLength int
	// done is the straddled PDU handed out by the last Push, pooled again at the next.
	done    *[]byte
	offset  int64
	failure *FramingError
	spans   []span
	stats   Stats
}

// NewFramer makes a framer for a direction starting in mode, with the default
// 64 KiB PDU limit and frames of at most maxFrameBytes (0: 256 KiB). It panics
// on limits CheckLimits refuses (Node validates the configuration first);
// NewFramerLimits returns the error instead.
func NewFramer(mode Mode, maxFrameBytes int) *Framer {
	f, err := NewFramerLimits(mode, 0, maxFrameBytes)
	if err != nil {
		panic(err)
	}
	return f
}

// NewFramerLimits is NewFramer with both limits (0 each: the default).
func NewFramerLimits(mode Mode, maxPduBytes, maxFrameBytes int) (*Framer, error) {
	if !mode.valid() {
		return nil, fmt.Errorf("unknown framing mode %d", mode)
	}
	maxPdu, maxFrame, err := CheckLimits(maxPduBytes, maxFrameBytes)
	if err != nil {
		return nil, err
	}
	return &Framer{mode: mode, maxPduBytes: maxPdu, maxFrameBytes: maxFrame, pendingLength: -1, spans: make([]span, 0, 8)}, nil
}

// Mode is the mode the next PDU is read in.
func (f *Framer) Mode() Mode { return f.mode }

// SetMode changes the mode (the kiosk's first TPKT ends NLA in this direction too).
func (f *Framer) SetMode(mode Mode) {
	if mode.valid() {
		f.mode = mode
	}
}

// MaxFrameBytes and MaxPduBytes are the limits in force.
func (f *Framer) MaxFrameBytes() int { return f.maxFrameBytes }

// MaxPduBytes is the largest PDU accepted.
func (f *Framer) MaxPduBytes() int { return f.maxPduBytes }

// Stats are the counters so far.
func (f *Framer) Stats() Stats { return f.stats }

// BufferedBytes are the bytes of a PDU that has begun but not ended.
func (f *Framer) BufferedBytes() int {
	if f.pending != nil {
		return len(*f.pending)
	}
	return f.headLen
}

// Offset is the stream offset of the first byte not yet handed out in a PDU.
func (f *Framer) Offset() int64 { return f.offset }

// Err is the FramingError that ended the stream, or nil.
func (f *Framer) Err() *FramingError { return f.failure }

// Push takes the next chunk of the stream and calls emit, in order, with the
// PDUs now whole, coalesced into batches of at most MaxFrameBytes (one
// WebSocket message each), and each batch's PDU count. A batch may be a
// slice of chunk or of the framer's own buffer: either stays valid until the
// next Push or Release, and must not be written to. When the chunk holds a
// bad PDU, nothing of it is emitted (as push() returns nothing when it
// throws) and the *FramingError is returned, now and for every later Push.
// Whole PDUs cost no allocation.
func (f *Framer) Push(chunk []byte, emit func(batch []byte, pdus int)) error {
	if f.failure != nil {
		return f.failure
	}
	f.releaseDone()
	f.spans = f.spans[:0]
	if err := f.frame(chunk); err != nil {
		f.failure = err
		f.spans = f.spans[:0]
		return err
	}
	f.stats.Batches += uint64(len(f.spans))
	for i := range f.spans {
		emit(f.spans[i].data, f.spans[i].pdus)
		f.spans[i].data = nil
	}
	return nil
}

// Release gives the framer's buffers back to the pool; the framer must not be used after.
func (f *Framer) Release() {
	f.releaseDone()
	if f.pending != nil {
		putBuffer(f.pending)
		f.pending = nil
	}
}

func (f *Framer) releaseDone() {
	if f.done != nil {
		putBuffer(f.done)
		f.done = nil
	}
}

func (f *Framer) frame(chunk []byte) *FramingError {
	position := 0
	if f.BufferedBytes() > 0 {
		taken, err := f.completePending(chunk)
		if err != nil || taken < 0 {
			return err
		}
		position = taken
	}
	batchStart, batchBytes, batchPdus := 0, 0, 0
	for position < len(chunk) {
		length, err := ReadLength(chunk[position:], f.mode, f.maxPduBytes, f.offset)
		if err != nil {
			return err
		}
		if length < 0 || position+length > len(chunk) {
			f.holdTail(chunk[position:], length)
			break
		}
		if batchPdus > 0 && batchBytes+length <= f.maxFrameBytes {
			batchBytes += length
			batchPdus++
		} else {
			if batchPdus > 0 {
				f.spans = append(f.spans, span{chunk[batchStart : batchStart+batchBytes], batchPdus})
			}
			batchStart, batchBytes, batchPdus = position, length, 1
		}
		f.count(chunk[position], length)
		position += length
	}
	if batchPdus > 0 {
		f.spans = append(f.spans, span{chunk[batchStart : batchStart+batchBytes], batchPdus})
	}
	return nil
}

// count is #emit without the array: one PDU of length bytes starting with first was handed out.
func (f *Framer) count(first byte, length int) {
	f.stats.Pdus++
	f.stats.Bytes += uint64(length)
	f.offset += int64(length)
	f.mode = ModeAfter(f.mode, first)
}

// holdTail keeps the start of a PDU that does not end in this chunk; length is -1 while its header is incomplete.
func (f *Framer) holdTail(tail []byte, length int) {
	if length < 0 {
		f.headLen = copy(f.head[:], tail)
		f.pendingLength = -1
		return
	}
	f.pending = getBuffer(length)
	*f.pending = append((*f.pending)[:0], tail...)
	f.pendingLength = length
}

// completePending adds chunk to the pending PDU; returns where whole PDUs resume in chunk, or -1.
func (f *Framer) completePending(chunk []byte) (int, *FramingError) {
	if f.pending == nil {
		// Only the header straddles: read it across the held bytes and the chunk's first few.
		var peek [2 * MaxHeaderBytes]byte
		n := copy(peek[:], f.head[:f.headLen])
		n += copy(peek[n:n+MaxHeaderBytes], chunk)
		length, err := ReadLength(peek[:n], f.mode, f.maxPduBytes, f.offset)
		if err != nil {
			return 0, err
		}
		if length < 0 {
			f.headLen += copy(f.head[f.headLen:], chunk)
			return -1, nil
		}
		f.pending = getBuffer(length)
		*f.pending = append((*f.pending)[:0], f.head[:f.headLen]...)
		f.headLen = 0
		f.pendingLength = length
	}
	have := len(*f.pending)
	if have+len(chunk) < f.pendingLength {
		*f.pending = append(*f.pending, chunk...)
		return -1, nil
	}
	take := f.pendingLength - have
	pdu := append(*f.pending, chunk[:take]...)
	*f.pending = pdu
	f.stats.Copies++
	f.stats.CopiedBytes += uint64(len(pdu))
	f.done = f.pending
	f.pending = nil
	f.pendingLength = -1
	f.spans = append(f.spans, span{pdu, 1})
	f.count(pdu[0], len(pdu))
	return take, nil
}
