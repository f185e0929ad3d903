package pdu

import (
	"math/bits"
	"sync"
)

// Buffers for PDUs that straddle reads, pooled by power-of-two size class:
// thousands of sessions each copy a PDU now and then, and holding one
// 64 KiB buffer per direction for that would cost more memory than the
// copies cost time.
const (
	smallestClassBits = 9  // 512 bytes
	largestClassBits  = 16 // 64 KiB: the largest TPKT
)

var bufferPools [largestClassBits - smallestClassBits + 1]sync.Pool

func classOf(length int) int {
	if length <= 1<<smallestClassBits {
		return 0
	}
	return bits.Len(uint(length-1)) - smallestClassBits
}

// getBuffer returns an empty buffer with room for length bytes.
func getBuffer(length int) *[]byte {
	class := classOf(length)
	if class >= len(bufferPools) {
		buffer := make([]byte, 0, length)
		return &buffer
	}
	if pooled, ok := bufferPools[class].Get().(*[]byte); ok {
		*pooled = (*pooled)[:0]
		return pooled
	}
	buffer := make([]byte, 0, 1<<(class+smallestClassBits))
	return &buffer
}

func putBuffer(buffer *[]byte) {
	size := cap(*buffer)
	class := classOf(size)
	if class >= len(bufferPools) || 1<<(class+smallestClassBits) != size {
		return
	}
	bufferPools[class].Put(buffer)
}
