package datasession

import (
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"

	"lanterna/dataplane/edgeloop"
	"lanterna/dataplane/internal/rpc"
	"lanterna/dataplane/internal/wsread"
)

// controlWait bounds gorilla's wait for its own write lock on a control frame.
const controlWait = time.Second

// displayLeg is the display's WebSocket. Every write takes writeMu (the
// pump's batches, pongs, `secured`, the goodbye). One reader at a time reads
// it: the handshake's own reads, then readKiosk through the silence, then
// the event loop (serveKiosk) once handOver stopped readKiosk; endReader
// marks, once, that it has been read to its end.
type displayLeg struct {
	ws      *websocket.Conn
	writeMu sync.Mutex

	// handingOver: the silence's reader is being stopped for the loop (it
	// closes readerStopped instead of taking the deadline as the display's end)
	handingOver   atomic.Bool
	readerStopped chan struct{}
	// socket: the event loop's hold on the connection; frames parses what
	// the loop reads (gorilla's reader treats a would-block as the end). Set
	// by handOver, published by pump.looped.
	socket *edgeloop.Socket
	frames *wsread.Reader

	readerOnce sync.Once
	readEnded  atomic.Bool
	// readerDone is closed when the display's socket has been read to its end.
	readerDone chan struct{}

	// lastPongNs: when a ping was last answered (the reader's; pings closer
	// together than minPingInterval get no answer)
	lastPongNs int64
}

// stopReads makes the reader's wait end now (a drain, or the hand-over to the loop).
func (d *displayLeg) stopReads() { _ = d.ws.NetConn().SetReadDeadline(time.Unix(1, 0)) }

// endReader: the display's socket is read to its end (its close frame, its
// end, or the goodbye's grace); waitForClose may close it.
func (d *displayLeg) endReader() {
	d.readerOnce.Do(func() {
		d.readEnded.Store(true)
		close(d.readerDone)
	})
}

// writeControl sends a control frame (gorilla takes its own lock for these), within controlWait.
func (d *displayLeg) writeControl(kind int, data []byte) {
	_ = d.ws.WriteControl(kind, data, time.Now().Add(controlWait))
}

// pongDue: a ping at now is answered (and counted as the last answered), or
// false when it came sooner than minPingInterval after the last one.
func (d *displayLeg) pongDue(now int64) bool {
	if d.lastPongNs != 0 && time.Duration(now-d.lastPongNs) < minPingInterval {
		return false
	}
	d.lastPongNs = now
	return true
}

// readKiosk reads the display's socket from the silence until the relay's
// loop takes it over (or to its end, when the session ends first): during
// the silence a message interrupts; once relaying, binary frames go to the
// server and text frames are session control; after the end, messages are
// dropped until the close frame (or the grace) ends the socket.
func (s *session) readKiosk() {
	buffer := make([]byte, 0, 4<<10)
	for {
		kind, reader, err := s.display.ws.NextReader()
		if err == nil {
			buffer, err = readAll(reader, buffer[:0])
		}
		if err != nil {
			if s.display.handingOver.Load() {
				// the deadline was handOver's: the loop reads from here
				close(s.display.readerStopped)
				return
			}
			s.kioskGone(err)
			s.display.endReader()
			return
		}
		switch s.phase.state.Load() {
		case stateSilent:
			if kind == websocket.TextMessage && isCloseMessage(buffer) {
				s.phase.interrupt(earlyClose)
			} else {
				s.phase.interrupt(earlyViolation)
			}
		case stateRelaying:
			if kind == websocket.BinaryMessage {
				s.clientFrame(buffer)
			} else {
				s.clientText(buffer)
			}
		}
		// a frame far larger than usual is not kept for the session's life
		if cap(buffer) > 256<<10 {
			buffer = make([]byte, 0, 4<<10)
		}
	}
}

// kioskGone: the display's socket ended (or broke the protocol): during the
// silence an interruption, while relaying the session's end.
func (s *session) kioskGone(err error) {
	switch s.phase.state.Load() {
	case stateSilent:
		s.phase.interrupt(earlyGone)
		if s.phase.relaying() {
			s.finish(end{reason: rpc.ReasonClientClosed})
		}
	case stateRelaying:
		s.log.Debug("display socket ended", "err", err.Error())
		s.finish(end{reason: rpc.ReasonClientClosed})
	}
}

// readAll reads one message into buffer, growing it as needed.
func readAll(reader io.Reader, buffer []byte) ([]byte, error) {
	for {
		if len(buffer) == cap(buffer) {
			buffer = append(buffer, 0)[:len(buffer)]
		}
		n, err := reader.Read(buffer[len(buffer):cap(buffer)])
		buffer = buffer[:len(buffer)+n]
		if err == io.EOF {
			return buffer, nil
		}
		if err != nil {
			return buffer, err
		}
	}
}

// serveKiosk reads the display until a read would wait: its frames parsed
// here (gorilla's reader treats a would-block as the connection's end).
// While relaying it stops while the server's backlog is pressed; after the
// end it reads on to the display's close frame.
func (s *session) serveKiosk(buf []byte) bool {
	d := &s.display
	for !d.readEnded.Load() {
		if !s.life.ended.Load() && s.server.socket.Pressed() {
			s.pump.kioskPaused = true
			return true
		}
		n, err := d.ws.NetConn().Read(buf)
		if n > 0 {
			if failure := d.frames.Feed(buf[:n], s.kioskMessage); failure != nil {
				s.kioskBrokeProtocol(failure)
				return false
			}
		}
		if err != nil {
			if errors.Is(err, edgeloop.ErrWouldBlock) {
				return true
			}
			if !d.readEnded.Load() {
				s.kioskGone(err)
				d.endReader()
			}
			return false
		}
	}
	return false
}

// kioskMessage is one whole message or control frame from the display, as
// gorilla's reader and readKiosk take it.
func (s *session) kioskMessage(kind wsread.Kind, payload []byte) bool {
	switch kind {
	case wsread.Binary, wsread.Text:
		if s.phase.relaying() {
			if kind == wsread.Binary {
				s.clientFrame(payload)
			} else {
				s.clientText(payload)
			}
		}
	case wsread.Ping:
		s.display.writeControl(websocket.PongMessage, payload)
	case wsread.Close:
		code, text := websocket.CloseNoStatusReceived, ""
		if len(payload) >= 2 {
			code, text = int(payload[0])<<8|int(payload[1]), string(payload[2:])
		}
		// gorilla's answer: the code echoed
		s.display.writeControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, ""))
		s.kioskGone(&websocket.CloseError{Code: code, Text: text})
		s.display.endReader()
		return false
	}
	return !s.display.readEnded.Load()
}

// kioskBrokeProtocol answers as gorilla does (a close frame with the code and reason) and ends the reading.
func (s *session) kioskBrokeProtocol(err error) {
	var broken *wsread.ProtocolError
	code, reason := websocket.CloseProtocolError, err.Error()
	if errors.As(err, &broken) {
		code, reason = broken.CloseCode, broken.Message
	}
	if code == websocket.CloseMessageTooBig {
		reason = ""
	}
	data := websocket.FormatCloseMessage(code, reason)
	for len(data) > 125 || !utf8.Valid(data[2:]) {
		data = data[:len(data)-1]
	}
	s.display.writeControl(websocket.CloseMessage, data)
	s.kioskGone(err)
	s.display.endReader()
}
