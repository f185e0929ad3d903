package main

import (
	"bytes"
	"net"
	"testing"
)

// serverFrame: an unmasked frame as the gateway sends it.
func serverFrame(opcode byte, payload []byte) []byte {
	c := &wsConn{}
	frame := c.maskedFrame(opcode, payload) // key zero: masking leaves the payload as is
	frame[1] &^= 0x80
	headerEnd := len(frame) - len(payload) - 4
	return append(frame[:headerEnd:headerEnd], payload...)
}

func TestNextFrameReadsFramesSplitAcrossReadsAndLargerThanTheBuffer(t *testing.T) {
	client, server := net.Pipe()
	defer client.Close()
	small := bytes.Repeat([]byte{0x03}, 90)
	large := bytes.Repeat([]byte{0x7f}, 70_000)
	go func() {
		stream := append(append(append(serverFrame(opBinary, small), serverFrame(opPing, []byte("hi"))...), serverFrame(opBinary, large)...), serverFrame(opText, []byte(`{"type":"x"}`))...)
		for i := 0; i < len(stream); i += 7 {
			_, _ = server.Write(stream[i:min(i+7, len(stream))])
		}
	}()
	go func() { // the pong the client answers with
		buf := make([]byte, 64)
		_, _ = server.Read(buf)
	}()
	c := &wsConn{conn: client, raw: client, buf: make([]byte, readBufferBytes)}
	for _, want := range []struct {
		opcode  byte
		payload []byte
	}{{opBinary, small}, {opBinary, large}, {opText, []byte(`{"type":"x"}`)}} {
		opcode, fin, payload, err := c.nextMessage()
		if err != nil {
			t.Fatal(err)
		}
		if opcode != want.opcode || !fin || !bytes.Equal(payload, want.payload) {
			t.Fatalf("got opcode %d fin %v %d bytes, want opcode %d %d bytes", opcode, fin, len(payload), want.opcode, len(want.payload))
		}
	}
}

func TestMaskedFrameUnmasksToThePayload(t *testing.T) {
	c := &wsConn{key: [4]byte{1, 2, 3, 4}}
	payload := bytes.Repeat([]byte{0xaa}, 200)
	frame := c.maskedFrame(opBinary, payload)
	if frame[0] != 0x82 || frame[1] != 0x80|126 || int(frame[2])<<8|int(frame[3]) != 200 {
		t.Fatalf("header % x", frame[:4])
	}
	key, masked := frame[4:8], frame[8:]
	for i := range masked {
		if masked[i]^key[i&3] != payload[i] {
			t.Fatalf("byte %d unmasks wrong", i)
		}
	}
}
