package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/lanterna/loadtest-generator/internal/loadwire"
	"lanterna/dataplane/edgeloop"
	"lanterna/dataplane/pdu"
	"lanterna/dataplane/rawsocket"
)

// echoChannel is what a paced connection needs from a client, whichever path
// it takes (loadtest/src/echoChannel.ts).
type echoChannel interface {
	// send writes the request, prepared at set-up, in one write.
	send() error
	// readResponses blocks, calling onResponses with how many whole response
	// PDUs each arrival completed, until the channel breaks or is closed.
	readResponses(onResponses func(count int) error) error
	// close ends the channel on purpose (the coordinator's close-all).
	close()
}

type kioskError struct{ phase, message string }

func (e *kioskError) Error() string { return e.phase + ": " + e.message }

func phaseError(phase string, err error) error {
	var known *kioskError
	if errors.As(err, &known) {
		return err
	}
	return &kioskError{phase, err.Error()}
}

// gatewayMessage: the fields of the gateway's JSON messages the load test reads.
type gatewayMessage struct {
	Type         string `json:"type"`
	Phase        string `json:"phase"`
	Code         string `json:"code"`
	Message      string `json:"message"`
	Reason       string `json:"reason"`
	SessionID    string `json:"sessionId"`
	SessionToken string `json:"sessionToken"`
}

func (m *gatewayMessage) describeError() string {
	return fmt.Sprintf("gateway error %s/%s %s", m.Phase, m.Code, m.Message)
}

// Small socket buffers: thousands of sockets, messages of at most a few KB.
const wsBufferBytes = 4096

func dialer(localAddress string, timeout time.Duration, subprotocol string, trust *tls.Config) *websocket.Dialer {
	netDialer := &net.Dialer{Timeout: timeout}
	if localAddress != "" {
		netDialer.LocalAddr = &net.TCPAddr{IP: net.ParseIP(localAddress)}
	}
	d := &websocket.Dialer{
		NetDialContext:   netDialer.DialContext,
		TLSClientConfig:  trust,
		HandshakeTimeout: timeout,
		ReadBufferSize:   wsBufferBytes,
		WriteBufferSize:  wsBufferBytes,
	}
	if subprotocol != "" {
		d.Subprotocols = []string{subprotocol}
	}
	return d
}

func dialWS(ctx context.Context, d *websocket.Dialer, address string) (*websocket.Conn, error) {
	conn, response, err := d.DialContext(ctx, address, http.Header{})
	if response != nil && response.Body != nil {
		_ = response.Body.Close()
	}
	if err != nil {
		if response != nil {
			return nil, fmt.Errorf("upgrade refused with %s", response.Status)
		}
		return nil, err
	}
	conn.SetReadLimit(1 << 20)
	return conn, nil
}

// readGatewayMessages reads until accept says done; binary frames go to accept as raw.
func readUntil(conn *websocket.Conn, phase string, deadline time.Time, accept func(kind int, data []byte) (bool, error)) error {
	if err := conn.SetReadDeadline(deadline); err != nil {
		return phaseError(phase, err)
	}
	defer func() { _ = conn.SetReadDeadline(time.Time{}) }()
	for {
		kind, data, err := conn.ReadMessage()
		if err != nil {
			var netErr net.Error
			if errors.As(err, &netErr) && netErr.Timeout() {
				return &kioskError{phase, "no answer before the deadline"}
			}
			return phaseError(phase, err)
		}
		if kind == websocket.TextMessage {
			var message gatewayMessage
			if err := json.Unmarshal(data, &message); err != nil || message.Type == "" {
				return &kioskError{phase, "unreadable gateway message"}
			}
			if message.Type == "error" {
				return &kioskError{phase, message.describeError()}
			}
		}
		done, err := accept(kind, data)
		if err != nil {
			return phaseError(phase, err)
		}
		if done {
			return nil
		}
	}
}

// kioskChannel: the data socket of a simulated kiosk (simulatedKiosk.ts), with
// its control socket (gorilla: set-up and pings only) as a companion whose
// loss ends the channel too. The data socket is wsConn: the hot path.
type kioskChannel struct {
	control     *websocket.Conn
	data        *wsConn
	request     []byte
	counter     pdu.StreamCounter
	closeOnce   sync.Once
	controlLost chan error
}

func connectKiosk(ctx context.Context, wire *wireDetails, baseURL string, trust *tls.Config, display displayAssignment, timeout time.Duration) (echoChannel, error) {
	d := dialer(display.LocalAddress, timeout, wire.Subprotocol, trust)
	control, err := dialWS(ctx, d, baseURL+"/v1/displays/"+url.PathEscape(display.ID)+"/control")
	if err != nil {
		return nil, phaseError("hello", err)
	}
	fail := func(err error) (echoChannel, error) { _ = control.UnderlyingConn().Close(); return nil, err }
	hello, _ := json.Marshal(map[string]any{"type": "hello", "protocol": wire.ProtocolVersion, "token": display.Token, "client": wire.Client})
	if err := control.WriteMessage(websocket.TextMessage, hello); err != nil {
		return fail(phaseError("hello", err))
	}
	var sessionID, sessionToken string
	start := time.Now()
	// the welcome within the timeout, the project within twice it (as the Node kiosk)
	err = readUntil(control, "hello", start.Add(timeout), func(kind int, data []byte) (bool, error) {
		if kind != websocket.TextMessage {
			return false, nil
		}
		var message gatewayMessage
		_ = json.Unmarshal(data, &message)
		return message.Type == "welcome", nil
	})
	if err != nil {
		return fail(err)
	}
	err = readUntil(control, "project", start.Add(2*timeout), func(kind int, data []byte) (bool, error) {
		if kind != websocket.TextMessage {
			return false, nil
		}
		var message gatewayMessage
		_ = json.Unmarshal(data, &message)
		if message.Type != "project" {
			return false, nil
		}
		sessionID, sessionToken = message.SessionID, message.SessionToken
		return true, nil
	})
	if err != nil {
		return fail(err)
	}
	data, err := dialWebSocket(ctx, baseURL+"/v1/sessions/"+url.PathEscape(sessionID)+"/data", display.LocalAddress, wire.Subprotocol, trust, timeout)
	if err != nil {
		return fail(phaseError("open", err))
	}
	failBoth := func(err error) (echoChannel, error) { _ = data.raw.Close(); return fail(err) }
	open, _ := json.Marshal(map[string]string{"type": "open", "token": sessionToken})
	if err := data.writeFrame(opText, open); err != nil {
		return failBoth(phaseError("open", err))
	}
	if err := data.writeFrame(opBinary, display.ConnectionRequest); err != nil {
		return failBoth(phaseError("open", err))
	}
	if err := awaitSecured(data, time.Now().Add(3*timeout)); err != nil {
		return failBoth(err)
	}
	channel := &kioskChannel{control: control, data: data, request: data.maskedFrame(opBinary, wire.RequestPdu), controlLost: make(chan error, 1)}
	go channel.watchControl()
	return channel, nil
}

// awaitSecured reads the data socket until `secured` and the TLS Confirm after it.
func awaitSecured(data *wsConn, deadline time.Time) error {
	_ = data.raw.SetReadDeadline(deadline)
	defer func() { _ = data.raw.SetReadDeadline(time.Time{}) }()
	secured := false
	for {
		opcode, fin, payload, err := data.nextMessage()
		if err != nil {
			var netErr net.Error
			if errors.As(err, &netErr) && netErr.Timeout() {
				return &kioskError{"secured", "no answer before the deadline"}
			}
			return phaseError("secured", err)
		}
		if opcode == opText {
			var message gatewayMessage
			if err := json.Unmarshal(payload, &message); err != nil || message.Type == "" {
				return &kioskError{"secured", "unreadable gateway message"}
			}
			switch message.Type {
			case "error":
				return &kioskError{"secured", message.describeError()}
			case "secured":
				secured = true
			}
			continue
		}
		if !secured {
			return &kioskError{"secured", "binary frame before secured"}
		}
		if !fin {
			return &kioskError{"secured", "fragmented connection confirm"}
		}
		if err := loadwire.ExpectTLSConfirm(payload, "gateway"); err != nil {
			return phaseError("secured", err)
		}
		return nil
	}
}

// watchControl reads the control socket (answering the gateway's pings) until it ends.
func (k *kioskChannel) watchControl() {
	for {
		if _, _, err := k.control.NextReader(); err != nil {
			k.controlLost <- &kioskError{"relay", "control socket closed: " + err.Error()}
			// the data reader notices through the closed data socket
			_ = k.data.raw.Close()
			return
		}
	}
}

func (k *kioskChannel) send() error { return k.data.writeRaw(k.request) }

func (k *kioskChannel) readResponses(onResponses func(count int) error) error {
	for {
		opcode, fin, payload, err := k.data.nextMessage()
		if err != nil {
			select {
			case lost := <-k.controlLost:
				return lost
			default:
			}
			return &kioskError{"relay", "data socket: " + err.Error()}
		}
		if opcode == opText {
			var message gatewayMessage
			if err := json.Unmarshal(payload, &message); err != nil {
				return &kioskError{"relay", "unreadable gateway message"}
			}
			switch message.Type {
			case "error":
				return &kioskError{"relay", message.describeError()}
			case "ended":
				return &kioskError{"relay", "session ended (" + message.Reason + ")"}
			}
			continue
		}
		// the gateway's contract: a message holds whole PDUs (counted across its frames)
		count, err := k.counter.Push(payload)
		if err != nil {
			return &kioskError{"relay", err.Error()}
		}
		if fin && !k.counter.AtBoundary() {
			return &kioskError{"relay", "message ends inside a pdu"}
		}
		if count > 0 {
			if err := onResponses(count); err != nil {
				return err
			}
		}
	}
}

func (k *kioskChannel) close() {
	k.closeOnce.Do(func() {
		deadline := time.Now().Add(2 * time.Second)
		_ = k.data.raw.SetWriteDeadline(deadline)
		_ = k.data.writeFrame(opText, []byte(`{"type":"close"}`))
		k.data.closeGracefully(2 * time.Second)
		_ = k.control.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(1000, ""), deadline)
		time.AfterFunc(2*time.Second, func() { _ = k.control.UnderlyingConn().Close() })
	})
}

// streamChannel: a byte stream of PDUs (direct TLS, or a WebSocket relay that
// forwards TCP chunks as they come: websockify, the pipe baseline).
type streamChannel struct {
	write   func() error
	read    func() ([]byte, error)
	counter pdu.StreamCounter
	closer  func()
}

func (s *streamChannel) send() error { return s.write() }

func (s *streamChannel) readResponses(onResponses func(count int) error) error {
	for {
		chunk, err := s.read()
		if err != nil {
			return err
		}
		count, err := s.counter.Push(chunk)
		if err != nil {
			return err
		}
		if count > 0 {
			if err := onResponses(count); err != nil {
				return err
			}
		}
	}
}

func (s *streamChannel) close() { s.closer() }

// connectDirect: X.224 in the clear, then TLS, straight to the echo host
// (directChannel.ts). Once secured, the socket leaves Go's poller for the
// generator's event loop (internal/edgeloop): responses are read there, with
// no goroutine per connection.
func connectDirect(ctx context.Context, wire *wireDetails, host string, port int, timeout time.Duration) (echoChannel, error) {
	netDialer := &net.Dialer{Timeout: timeout}
	dialed, err := netDialer.DialContext(ctx, "tcp", net.JoinHostPort(host, fmt.Sprint(port)))
	if err != nil {
		return nil, err
	}
	tcp, ok := dialed.(*net.TCPConn)
	if !ok {
		_ = dialed.Close()
		return nil, errors.New("not a tcp connection")
	}
	raw := rawsocket.Wrap(tcp)
	_ = raw.SetDeadline(time.Now().Add(timeout))
	if _, err := raw.Write(wire.ConnectionRequest); err != nil {
		_ = raw.Close()
		return nil, err
	}
	reader := pdu.FirstPduReader{Max: 1024}
	buf := make([]byte, 1024)
	for {
		n, err := raw.Read(buf)
		if err != nil {
			_ = raw.Close()
			return nil, fmt.Errorf("server closed during the handshake: %w", err)
		}
		confirm, rest, done, err := reader.Push(buf[:n])
		if err != nil {
			_ = raw.Close()
			return nil, err
		}
		if !done {
			continue
		}
		if err := loadwire.ExpectTLSConfirm(confirm, "server"); err != nil {
			_ = raw.Close()
			return nil, err
		}
		if len(rest) > 0 {
			_ = raw.Close()
			return nil, errors.New("bytes after the confirm before tls")
		}
		break
	}
	under := edgeloop.NewSocket(raw)
	// the echo host's certificate is self-signed on purpose: a measuring stick, not a trust decision
	secure := tls.Client(under, &tls.Config{InsecureSkipVerify: true})
	if err := secure.HandshakeContext(ctx); err != nil {
		_ = raw.Close()
		return nil, fmt.Errorf("tls handshake: %w", err)
	}
	_ = raw.SetDeadline(time.Time{})
	if err := under.HandOff(tcp); err != nil {
		_ = raw.Close()
		return nil, err
	}
	return &directChannel{under: under, secure: secure, request: wire.RequestPdu}, nil
}

// directChannel: TLS straight to the echo host, read by the event loop.
type directChannel struct {
	under   *edgeloop.Socket
	secure  *tls.Conn
	request []byte
	counter pdu.StreamCounter
	loop    *edgeloop.Loop
	// set by attach; called on the loop's goroutine
	onResponses func(count int) error
	onFailure   func(err error)
}

// one TLS record, one write
func (d *directChannel) send() error { _, err := d.secure.Write(d.request); return err }

// readResponses: unused (the loop reads: attach)
func (d *directChannel) readResponses(func(count int) error) error {
	return errors.New("a direct channel is read by the event loop")
}

// attach hands the channel to the loop; onFailure runs once, on the loop's
// goroutine, when the channel breaks.
func (d *directChannel) attach(loop *edgeloop.Loop, onResponses func(count int) error, onFailure func(err error)) {
	d.loop, d.onResponses, d.onFailure = loop, onResponses, onFailure
	// a record the handshake's reads took in brings no readiness event: read it first
	d.under.Drained()
	if !d.readReady(nil) {
		return
	}
	if err := loop.Add(d.under, d.readReady); err != nil {
		d.fail(err)
	}
}

// readReady counts the responses read until a read would wait; false once the channel failed.
func (d *directChannel) readReady(buf []byte) bool {
	if buf == nil {
		buf = make([]byte, 16384)
	}
	for {
		n, err := d.secure.Read(buf)
		if n > 0 {
			count, pushErr := d.counter.Push(buf[:n])
			if pushErr == nil && count > 0 {
				pushErr = d.onResponses(count)
			}
			if pushErr != nil {
				d.fail(pushErr)
				return false
			}
		}
		if err != nil {
			if errors.Is(err, edgeloop.ErrWouldBlock) {
				return true
			}
			d.fail(errors.New("echo host closed the connection"))
			return false
		}
	}
}

func (d *directChannel) fail(err error) {
	d.loop.Remove(d.under)
	d.onFailure(err)
}

func (d *directChannel) close() {
	_ = d.secure.CloseWrite()
	time.AfterFunc(2*time.Second, func() { d.loop.Remove(d.under) })
}

// connectStreamRelay: a WebSocket relay with no kiosk protocol (websockify,
// the pipe): the Connection Request goes over the WebSocket, the echo host
// (tls-first) confirms inside TLS, responses are counted on the byte stream.
func connectStreamRelay(ctx context.Context, wire *wireDetails, address, localAddress, name string, trust *tls.Config, timeout time.Duration) (echoChannel, error) {
	conn, err := dialWebSocket(ctx, address, localAddress, "", trust, timeout)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := conn.writeFrame(opBinary, wire.ConnectionRequest); err != nil {
		_ = conn.raw.Close()
		return nil, err
	}
	first := pdu.FirstPduReader{Max: 1024}
	var rest []byte
	_ = conn.raw.SetReadDeadline(time.Now().Add(timeout))
	for {
		opcode, _, payload, err := conn.nextMessage()
		if err != nil {
			_ = conn.raw.Close()
			return nil, fmt.Errorf("%s: confirm: %w", name, err)
		}
		if opcode != opBinary {
			continue
		}
		confirm, after, done, err := first.Push(payload)
		if err == nil && done {
			rest = append([]byte(nil), after...)
			err = loadwire.ExpectTLSConfirm(confirm, "echo host")
		}
		if err != nil {
			_ = conn.raw.Close()
			return nil, fmt.Errorf("%s: confirm: %w", name, err)
		}
		if done {
			break
		}
	}
	_ = conn.raw.SetReadDeadline(time.Time{})
	request := conn.maskedFrame(opBinary, wire.RequestPdu)
	channel := &streamChannel{
		write:  func() error { return conn.writeRaw(request) },
		closer: func() { conn.closeGracefully(2 * time.Second) },
	}
	if _, err := channel.counter.Push(rest); err != nil {
		_ = conn.raw.Close()
		return nil, err
	}
	channel.read = func() ([]byte, error) {
		for {
			opcode, _, payload, err := conn.nextMessage()
			if err != nil {
				return nil, fmt.Errorf("%s closed: %w", name, err)
			}
			if opcode == opBinary {
				return payload, nil
			}
		}
	}
	return channel, nil
}
