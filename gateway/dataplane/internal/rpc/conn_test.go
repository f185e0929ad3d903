package rpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// pair is a Conn whose other end the test plays: lines it writes come out of
// fromGo, lines the test writes to toGo go into it.
type pair struct {
	conn   *Conn
	toGo   *io.PipeWriter
	fromGo *bufio.Reader
	served chan error
	got    chan Incoming
}

func newPair(t *testing.T) *pair {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &pair{conn: New(inR, outW), toGo: inW, fromGo: bufio.NewReader(outR), served: make(chan error, 1), got: make(chan Incoming, 16)}
	go func() { p.served <- p.conn.Serve(func(m Incoming) { p.got <- m }, nil) }()
	t.Cleanup(func() { _ = inW.Close(); _ = outR.Close() })
	return p
}

func (p *pair) readLine(t *testing.T) map[string]any {
	t.Helper()
	line, err := p.fromGo.ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var value map[string]any
	if err := json.Unmarshal(line, &value); err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	return value
}

func (p *pair) write(t *testing.T, line string) {
	t.Helper()
	if _, err := p.toGo.Write([]byte(line + "\n")); err != nil {
		t.Fatal(err)
	}
}

func TestCallsGetTheirOwnAnswersInAnyOrderWithFreshIds(t *testing.T) {
	p := newPair(t)
	type result struct {
		answer OpenAnswer
		err    error
	}
	first, second := make(chan result, 1), make(chan result, 1)
	go func() {
		var a OpenAnswer
		_, err := p.conn.Call(context.Background(), OpOpen, OpenRequest{SessionID: "s1", Token: "t"}, &a)
		first <- result{a, err}
	}()
	one := p.readLine(t)
	go func() {
		var a OpenAnswer
		_, err := p.conn.Call(context.Background(), OpOpen, OpenRequest{SessionID: "s2"}, &a)
		second <- result{a, err}
	}()
	two := p.readLine(t)
	if one["op"] != "open" || one["sessionId"] != "s1" || one["token"] != "t" || one["id"] == two["id"] {
		t.Fatalf("requests %v and %v", one, two)
	}
	p.write(t, `{"id":`+jsonOf(two["id"])+`,"ok":{"displayId":"d2"}}`)
	p.write(t, `{"id":`+jsonOf(one["id"])+`,"ok":{"displayId":"d1"}}`)
	if r := <-first; r.err != nil || r.answer.DisplayID != "d1" {
		t.Fatalf("first: %+v", r)
	}
	if r := <-second; r.err != nil || r.answer.DisplayID != "d2" {
		t.Fatalf("second: %+v", r)
	}
}

func jsonOf(value any) string {
	b, _ := json.Marshal(value)
	return string(b)
}

func TestARefusalIsTheKioskProtocolsError(t *testing.T) {
	p := newPair(t)
	done := make(chan *Refusal, 1)
	go func() {
		refusal, err := p.conn.Call(context.Background(), OpResolve, ResolveRequest{SessionID: "s"}, &ResolveAnswer{})
		if err != nil {
			t.Error(err)
		}
		done <- refusal
	}()
	request := p.readLine(t)
	p.write(t, `{"id":`+jsonOf(request["id"])+`,"error":{"phase":"connect","code":"target-forbidden","message":"no","detail":{"host":"h"}}}`)
	refusal := <-done
	if refusal == nil || refusal.Phase != "connect" || refusal.Code != "target-forbidden" || refusal.Message != "no" || refusal.Detail["host"] != "h" {
		t.Fatalf("refusal %+v", refusal)
	}
}

func TestACallWithoutAnAnswerEndsAtItsDeadlineAndALateAnswerIsDropped(t *testing.T) {
	p := newPair(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := p.conn.Call(ctx, OpAdmit, AdmitRequest{Host: "h"}, nil)
		done <- err
	}()
	request := p.readLine(t)
	if err := <-done; !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v", err)
	}
	p.write(t, `{"id":`+jsonOf(request["id"])+`,"ok":{"status":0}}`)
	// the late answer is no one's; a notification after it still arrives
	p.write(t, `{"op":"stop","sessionId":"s","reason":"stopped"}`)
	got := <-p.got
	var stop Stop
	if err := json.Unmarshal(got.Raw, &stop); err != nil || got.Op != OpStop || got.ID != nil || stop.SessionID != "s" {
		t.Fatalf("got %+v %+v %v", got, stop, err)
	}
}

func TestRequestsFromNodeAreHandledAndAnswered(t *testing.T) {
	p := newPair(t)
	p.write(t, `{"id":7,"op":"drain","deadlineMs":500}`)
	got := <-p.got
	var drain Drain
	_ = json.Unmarshal(got.Raw, &drain)
	if got.ID == nil || *got.ID != 7 || got.Op != OpDrain || drain.DeadlineMs != 500 {
		t.Fatalf("got %+v", got)
	}
	replied := make(chan error, 1)
	go func() { replied <- p.conn.Reply(*got.ID, nil) }()
	answer := p.readLine(t)
	if answer["id"] != float64(7) || jsonOf(answer["ok"]) != "{}" {
		t.Fatalf("answer %v", answer)
	}
	if err := <-replied; err != nil {
		t.Fatal(err)
	}
}

func TestALineOverOneMebibyteIsDroppedAndTheNextIsRead(t *testing.T) {
	p := newPair(t)
	go func() {
		_, _ = p.toGo.Write([]byte(`{"op":"stop","sessionId":"` + strings.Repeat("x", MaxLineBytes) + `"}` + "\n"))
		_, _ = p.toGo.Write([]byte(`{"op":"stop","sessionId":"short"}` + "\n"))
	}()
	got := <-p.got
	if !bytes.Contains(got.Raw, []byte(`"short"`)) {
		t.Fatalf("got %.80q", got.Raw)
	}
	if err := p.conn.Notify(OpSample, map[string]string{"big": strings.Repeat("y", MaxLineBytes)}); !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("an oversized line was sent: %v", err)
	}
}

func TestTheEndOfTheStreamFailsTheCallsWaiting(t *testing.T) {
	p := newPair(t)
	done := make(chan error, 1)
	go func() {
		_, err := p.conn.Call(context.Background(), OpOpen, OpenRequest{}, nil)
		done <- err
	}()
	p.readLine(t)
	_ = p.toGo.Close()
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Fatalf("err %v", err)
	}
	if err := <-p.served; err != nil {
		t.Fatalf("serve %v", err)
	}
	<-p.conn.Done()
}

func TestNotificationsCarryTheirFieldsBesideOp(t *testing.T) {
	p := newPair(t)
	go func() { _ = p.conn.Notify(OpPhase, Phase{Phase: "tls", Ms: 1.5}) }()
	line := p.readLine(t)
	if line["op"] != "phase" || line["phase"] != "tls" || line["ms"] != 1.5 || line["id"] != nil {
		t.Fatalf("line %v", line)
	}
}

func TestLogLinesAreLowerCaseLevelsWithoutTime(t *testing.T) {
	var out bytes.Buffer
	NewLogger(&out, slog.LevelDebug).Warn("a thing", "sessionId", "s")
	var line map[string]any
	if err := json.Unmarshal(out.Bytes(), &line); err != nil {
		t.Fatal(err)
	}
	if line["level"] != "warn" || line["msg"] != "a thing" || line["sessionId"] != "s" || line["time"] != nil {
		t.Fatalf("line %v", line)
	}
}
