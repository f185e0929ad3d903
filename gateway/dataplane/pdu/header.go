package pdu

import "fmt"

// Codes of FramingError: the kiosk protocol's, so the relay forwards them as they are.
const (
	CodePduInvalid  = "pdu-invalid"
	CodePduTooLarge = "pdu-too-large"
)

// FramingError is the one error the framing functions return (framingError.ts).
type FramingError struct {
	Code    string
	Message string
	// Offset of the offending PDU's first byte in the stream (or frame).
	Offset int64
}

func (e *FramingError) Error() string { return e.Message }

// Limits of a whole-PDU stream (framingLimits.ts).
const (
	// DefaultMaxPduBytes: a single PDU is at most 64 KiB (TPKT cannot say more).
	DefaultMaxPduBytes = 64 * 1024
	// DefaultMaxFrameBytes: at most 256 KiB per WebSocket frame.
	DefaultMaxFrameBytes = 256 * 1024
	// LargestAllowedLimit: a DER length can claim up to 4 GiB; nothing in RDP comes near this.
	LargestAllowedLimit = 16 * 1024 * 1024
	// MinTpktLength: TPKT header (4) + the shortest X.224 TPDU, a Data TPDU header (3).
	MinTpktLength = 7
	// MaxHeaderBytes: the most header bytes any kind needs before its length is known (DER, 4 length bytes).
	MaxHeaderBytes = 6
)

// CheckLimits validates the two limits as framingLimits does (0 = the default);
// returns them defaulted, or an error naming the bad value.
func CheckLimits(maxPduBytes, maxFrameBytes int) (int, int, error) {
	if maxPduBytes == 0 {
		maxPduBytes = DefaultMaxPduBytes
	}
	if maxFrameBytes == 0 {
		maxFrameBytes = DefaultMaxFrameBytes
	}
	if maxPduBytes < MinTpktLength || maxPduBytes > LargestAllowedLimit {
		return 0, 0, fmt.Errorf("maxPduBytes must be an integer from %d to %d, got %d", MinTpktLength, LargestAllowedLimit, maxPduBytes)
	}
	if maxFrameBytes < maxPduBytes || maxFrameBytes > LargestAllowedLimit {
		return 0, 0, fmt.Errorf("maxFrameBytes must be an integer from maxPduBytes (%d) to %d, got %d", maxPduBytes, LargestAllowedLimit, maxFrameBytes)
	}
	return maxPduBytes, maxFrameBytes, nil
}

const (
	derSequence          = 0x30
	earlyUserAuthLength  = 4
	earlyUserAuthSuccess = 0x00
	earlyUserAuthDenied  = 0x05
)

// Kind names the PDU a header starts (pduHeader.ts PduKind).
func Kind(first byte, mode Mode) string {
	if first == TpktVersion {
		return "tpkt"
	}
	if mode == ModeRDP {
		return "fast-path"
	}
	if first == derSequence {
		return "ts-request"
	}
	return "early-user-auth"
}

func hexByte(b byte) string { return fmt.Sprintf("0x%02x", b) }

func invalid(message string, streamOffset int64) *FramingError {
	return &FramingError{Code: CodePduInvalid, Message: fmt.Sprintf("%s at offset %d", message, streamOffset), Offset: streamOffset}
}

func checked(first byte, mode Mode, length, maxPduBytes int, streamOffset int64) (int, *FramingError) {
	if length > maxPduBytes {
		return 0, &FramingError{
			Code:    CodePduTooLarge,
			Message: fmt.Sprintf("%s pdu of %d bytes exceeds the %d-byte limit at offset %d", Kind(first, mode), length, maxPduBytes, streamOffset),
			Offset:  streamOffset,
		}
	}
	return length, nil
}

// ReadLength is readPduLength: the whole length (header included) of the PDU
// that starts at b[0], or -1 when fewer than the needed header bytes are in
// b. streamOffset is where b[0] sits in the stream, for messages. It makes
// nothing unless it fails.
func ReadLength(b []byte, mode Mode, maxPduBytes int, streamOffset int64) (int, *FramingError) {
	available := len(b)
	if available < 1 {
		return -1, nil
	}
	first := b[0]

	if first == TpktVersion {
		if available < 4 {
			return -1, nil
		}
		if b[1] != 0 {
			return 0, invalid("tpkt reserved byte is "+hexByte(b[1])+", not 0x00,", streamOffset)
		}
		length := int(b[2])<<8 | int(b[3])
		if length < MinTpktLength {
			return 0, invalid(fmt.Sprintf("tpkt length %d is below %d", length, MinTpktLength), streamOffset)
		}
		return checked(first, mode, length, maxPduBytes, streamOffset)
	}

	if mode == ModeRDP {
		if first&0x03 != 0 {
			return 0, invalid("unknown pdu header byte "+hexByte(first), streamOffset)
		}
		if available < 2 {
			return -1, nil
		}
		second := b[1]
		if second&0x80 == 0 {
			if second < 2 {
				return 0, invalid(fmt.Sprintf("fast-path length %d is shorter than its header", second), streamOffset)
			}
			return checked(first, mode, int(second), maxPduBytes, streamOffset)
		}
		if available < 3 {
			return -1, nil
		}
		length := int(second&0x7f)<<8 | int(b[2])
		if length < 3 {
			return 0, invalid(fmt.Sprintf("fast-path length %d is shorter than its header", length), streamOffset)
		}
		return checked(first, mode, length, maxPduBytes, streamOffset)
	}

	if first == derSequence {
		if available < 2 {
			return -1, nil
		}
		lengthByte := b[1]
		if lengthByte < 0x80 {
			if lengthByte == 0 {
				return 0, invalid("empty ts-request", streamOffset)
			}
			return checked(first, mode, 2+int(lengthByte), maxPduBytes, streamOffset)
		}
		lengthBytes := int(lengthByte & 0x7f)
		if lengthBytes == 0 {
			return 0, invalid("ts-request with indefinite length", streamOffset)
		}
		if lengthBytes > 4 {
			return 0, invalid(fmt.Sprintf("ts-request length of %d bytes", lengthBytes), streamOffset)
		}
		if available < 2+lengthBytes {
			return -1, nil
		}
		content := 0
		for i := 0; i < lengthBytes; i++ {
			content = content<<8 | int(b[2+i])
		}
		if content == 0 {
			return 0, invalid("empty ts-request", streamOffset)
		}
		return checked(first, mode, 2+lengthBytes+content, maxPduBytes, streamOffset)
	}

	if mode == ModeNLAEx && (first == earlyUserAuthSuccess || first == earlyUserAuthDenied) {
		if available < earlyUserAuthLength {
			return -1, nil
		}
		for i := 1; i < earlyUserAuthLength; i++ {
			if b[i] != 0 {
				return 0, invalid(fmt.Sprintf("early user authorization result byte %d is %s, not 0x00,", i, hexByte(b[i])), streamOffset)
			}
		}
		return checked(first, mode, earlyUserAuthLength, maxPduBytes, streamOffset)
	}

	return 0, invalid("unknown pdu header byte "+hexByte(first)+" during nla", streamOffset)
}
