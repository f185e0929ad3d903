// Package rpc is the Go end of the data plane's contract with Node
// (docs/native-data-plane.md, "RPC"): newline-delimited JSON on one
// bidirectional stream (file descriptor 3), requests with integer ids both
// ways, answers, and notifications. It knows the framing and the
// correlation of answers; what each operation means lives with its caller.
package rpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
)

// MaxLineBytes is the longest line either side sends or reads.
const MaxLineBytes = 1 << 20

// ErrClosed: the stream ended before an answer came.
var ErrClosed = errors.New("the rpc stream is closed")

// ErrLineTooLong: a message would not fit one line.
var ErrLineTooLong = errors.New("the rpc message is longer than 1 MiB")

// Refusal is a request's error answer: the kiosk protocol's error, for the display as it is.
type Refusal struct {
	Phase   string         `json:"phase"`
	Code    string         `json:"code"`
	Message string         `json:"message,omitempty"`
	Detail  map[string]any `json:"detail,omitempty"`
}

func (r *Refusal) Error() string {
	return fmt.Sprintf("%s %s: %s", r.Phase, r.Code, r.Message)
}

// Incoming is one request or notification from Node: Raw is its whole line,
// for the handler to read the operation's own fields from.
type Incoming struct {
	// ID is set for a request, which must be answered with Reply.
	ID  *int64
	Op  string
	Raw []byte
}

// Handler is called for each request and notification Node sends, one at a
// time in the order they came: it must not block (start a goroutine for
// slow work).
type Handler func(message Incoming)

type answer struct {
	ok      json.RawMessage
	refusal *Refusal
}

// envelope is what every line is read as first.
type envelope struct {
	ID    *int64          `json:"id"`
	Op    string          `json:"op"`
	Ok    json.RawMessage `json:"ok"`
	Error *Refusal        `json:"error"`
}

// Conn is one end of the stream. Calls, notifications and replies are safe
// for concurrent use: each line is written whole.
type Conn struct {
	reader  io.Reader
	writer  io.Writer
	writeMu sync.Mutex

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan answer
	closed  bool
	done    chan struct{}
}

// New makes a Conn on a stream; Serve starts reading it.
func New(reader io.Reader, writer io.Writer) *Conn {
	return &Conn{reader: reader, writer: writer, pending: map[int64]chan answer{}, done: make(chan struct{})}
}

// Done is closed when the stream has ended (Serve returned).
func (c *Conn) Done() <-chan struct{} { return c.done }

// Serve reads lines until the stream ends, routing answers to their callers
// and everything else to handle. It returns nil at the end of the stream,
// else the read error; every call still waiting then fails with ErrClosed.
// A line over MaxLineBytes, or one that is not a JSON object, is dropped
// (its request, if it was one, goes unanswered: the sender's deadline ends it).
func (c *Conn) Serve(handle Handler, onDropped func(reason string)) error {
	defer c.shutdown()
	reader := bufio.NewReaderSize(c.reader, 64<<10)
	var line []byte
	tooLong := false
	drop := func(reason string) {
		if onDropped != nil {
			onDropped(reason)
		}
	}
	for {
		fragment, err := reader.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			if !tooLong && len(line)+len(fragment) > MaxLineBytes {
				tooLong, line = true, nil
			}
			if !tooLong {
				line = append(line, fragment...)
			}
			continue
		}
		if err != nil {
			// a last line without its newline is not a message
			return endOf(err)
		}
		// the newline is not counted
		if tooLong || len(line)+len(fragment) > MaxLineBytes+1 {
			tooLong, line = false, nil
			drop("line longer than 1 MiB")
			continue
		}
		var whole []byte
		if len(line) > 0 {
			whole, line = append(line, fragment...), nil
		} else {
			// ReadSlice's bytes are the reader's: the handler may keep Raw.
			whole = bytes.Clone(fragment)
		}
		whole = bytes.TrimSpace(whole)
		if len(whole) == 0 {
			continue
		}
		c.dispatch(whole, handle, drop)
	}
}

func endOf(err error) error {
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

func (c *Conn) dispatch(line []byte, handle Handler, drop func(reason string)) {
	var message envelope
	if err := json.Unmarshal(line, &message); err != nil {
		drop("not a json object: " + err.Error())
		return
	}
	if message.Op == "" {
		if message.ID == nil {
			drop("neither an op nor an id")
			return
		}
		c.mu.Lock()
		waiter, ok := c.pending[*message.ID]
		delete(c.pending, *message.ID)
		c.mu.Unlock()
		if !ok {
			drop("an answer to no request: id " + strconv.FormatInt(*message.ID, 10))
			return
		}
		waiter <- answer{ok: message.Ok, refusal: message.Error}
		return
	}
	handle(Incoming{ID: message.ID, Op: message.Op, Raw: line})
}

func (c *Conn) shutdown() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.closed = true
	for id, waiter := range c.pending {
		delete(c.pending, id)
		close(waiter)
	}
	close(c.done)
}

// Call sends a request and waits for its answer, until ctx ends. result, when
// not nil, receives the answer's ok object. A refusal comes back as *Refusal
// (the error return stays nil); err is for no answer: ctx's error, ErrClosed,
// or a write or decoding error.
func (c *Conn) Call(ctx context.Context, op string, params any, result any) (*Refusal, error) {
	waiter := make(chan answer, 1)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	c.nextID++
	id := c.nextID
	c.pending[id] = waiter
	c.mu.Unlock()
	forget := func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}
	if err := c.send(&id, op, params); err != nil {
		forget()
		return nil, err
	}
	select {
	case got, ok := <-waiter:
		if !ok {
			return nil, ErrClosed
		}
		if got.refusal != nil {
			return got.refusal, nil
		}
		if result != nil && len(got.ok) > 0 {
			if err := json.Unmarshal(got.ok, result); err != nil {
				return nil, fmt.Errorf("the answer to %s: %w", op, err)
			}
		}
		return nil, nil
	case <-ctx.Done():
		forget()
		return nil, ctx.Err()
	}
}

// Notify sends a notification: params' fields beside "op".
func (c *Conn) Notify(op string, params any) error {
	return c.send(nil, op, params)
}

// Reply answers Node's request id with ok (nil: an empty object).
func (c *Conn) Reply(id int64, ok any) error {
	if ok == nil {
		ok = struct{}{}
	}
	body, err := json.Marshal(ok)
	if err != nil {
		return err
	}
	line := make([]byte, 0, len(body)+32)
	line = append(line, `{"id":`...)
	line = strconv.AppendInt(line, id, 10)
	line = append(line, `,"ok":`...)
	line = append(line, body...)
	line = append(line, "}\n"...)
	return c.writeLine(line)
}

// send writes {"id":…,"op":…, params' fields}.
func (c *Conn) send(id *int64, op string, params any) error {
	line := make([]byte, 0, 256)
	line = append(line, '{')
	if id != nil {
		line = append(line, `"id":`...)
		line = strconv.AppendInt(line, *id, 10)
		line = append(line, ',')
	}
	line = append(line, `"op":`...)
	line = strconv.AppendQuote(line, op)
	if params != nil {
		body, err := json.Marshal(params)
		if err != nil {
			return err
		}
		if len(body) < 2 || body[0] != '{' {
			return fmt.Errorf("the parameters of %s are not an object", op)
		}
		if inner := bytes.TrimSpace(body[1 : len(body)-1]); len(inner) > 0 {
			line = append(line, ',')
			line = append(line, inner...)
		}
	}
	line = append(line, "}\n"...)
	return c.writeLine(line)
}

func (c *Conn) writeLine(line []byte) error {
	if len(line)-1 > MaxLineBytes {
		return ErrLineTooLong
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.writer.Write(line)
	return err
}
