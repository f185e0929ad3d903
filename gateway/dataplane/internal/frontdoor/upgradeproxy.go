package frontdoor

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// upgradeCopyBytes: each direction's copy buffer. Control and admin socket
// messages are small; a larger one simply takes several reads.
const upgradeCopyBytes = 4 << 10

// upstreamHeadTimeout bounds Node's answer to an upgrade (its status line and headers).
const upstreamHeadTimeout = 10 * time.Second

// upgradeProxy passes an upgrade that is not a data socket (a display's
// control socket, an admin's live view) to Node on its own Unix connection
// and, once Node switches protocols, copies both ways: the handler's
// goroutine one way, one more goroutine the other, 4 KiB each.
// httputil.ReverseProxy's upgrade path held four goroutines and two 32 KiB
// buffers per socket: at 2,400 KW v1 sessions the largest share of the
// data plane's heap.
type upgradeProxy struct {
	socket string
	proto  string
	// writeStall: each write to Node's socket has this deadline (the
	// client's side has its socket's own); 0: none
	writeStall time.Duration
	log        *slog.Logger
	heads      sync.Pool
}

func newUpgradeProxy(socket string, secure bool, writeStall time.Duration, log *slog.Logger) *upgradeProxy {
	p := &upgradeProxy{socket: socket, proto: forwardedProto(secure), writeStall: writeStall, log: log}
	p.heads.New = func() any { return bufio.NewReaderSize(nil, upgradeCopyBytes) }
	return p
}

func (p *upgradeProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), upstreamHeadTimeout)
	defer cancel()
	var dialer net.Dialer
	backend, err := dialer.DialContext(ctx, "unix", p.socket)
	if err != nil {
		p.log.Warn("the gateway's node side did not answer", "err", err.Error(), "path", r.URL.Path)
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	stop := context.AfterFunc(ctx, func() { _ = backend.SetDeadline(time.Unix(1, 0)) })
	head := p.heads.Get().(*bufio.Reader)
	head.Reset(backend)
	response, err := p.ask(backend, head, r)
	if !stop() || err != nil {
		p.heads.Put(head)
		_ = backend.Close()
		if err == nil {
			err = ctx.Err()
		}
		p.log.Warn("the gateway's node side did not answer", "err", err.Error(), "path", r.URL.Path)
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	if response.StatusCode != http.StatusSwitchingProtocols {
		// Node refused (a wrong token, a draining gateway): its answer as it is
		copyHeader(w.Header(), response.Header)
		w.WriteHeader(response.StatusCode)
		_, _ = io.Copy(w, io.LimitReader(response.Body, 1<<20))
		_ = response.Body.Close()
		p.heads.Put(head)
		_ = backend.Close()
		return
	}
	p.relay(w, backend, head, response)
}

// ask sends r to Node with the client in X-Forwarded-For and reads the answer's head.
func (p *upgradeProxy) ask(backend net.Conn, head *bufio.Reader, r *http.Request) (*http.Response, error) {
	out := &http.Request{
		Method: r.Method, URL: &url.URL{Path: r.URL.Path, RawPath: r.URL.RawPath, RawQuery: r.URL.RawQuery},
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Host: r.Host, Header: r.Header.Clone(),
	}
	// an upgrade has no body; Go's own User-Agent is not the client's
	for _, name := range []string{"Content-Length", "Transfer-Encoding", "Trailer"} {
		out.Header.Del(name)
	}
	if _, ok := out.Header["User-Agent"]; !ok {
		out.Header["User-Agent"] = []string{""}
	}
	setForwarded(out.Header, r, p.proto)
	if err := out.Write(backend); err != nil {
		return nil, err
	}
	return http.ReadResponse(head, out)
}

// relay hands the client's socket over to Node's: the 101 and anything
// either side sent early, then both directions until one ends.
func (p *upgradeProxy) relay(w http.ResponseWriter, backend net.Conn, head *bufio.Reader, response *http.Response) {
	client, buffered, err := http.NewResponseController(w).Hijack()
	if err != nil {
		p.heads.Put(head)
		_ = backend.Close()
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	defer func() { _ = client.Close(); _ = backend.Close() }()
	_ = backend.SetDeadline(time.Time{})
	_ = client.SetDeadline(time.Time{})
	var answer strings.Builder
	answer.WriteString("HTTP/1.1 101 Switching Protocols\r\n")
	_ = response.Header.Write(&answer)
	answer.WriteString("\r\n")
	early, _ := head.Peek(head.Buffered())
	if _, err := client.Write(append([]byte(answer.String()), early...)); err != nil {
		p.heads.Put(head)
		return
	}
	head.Reset(nil)
	p.heads.Put(head)
	toNode := deadlineWriter{conn: backend, limit: p.writeStall}
	if n := buffered.Reader.Buffered(); n > 0 {
		sent, _ := buffered.Reader.Peek(n)
		if _, err := toNode.Write(sent); err != nil {
			return
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		copySmall(toNode, client)
		// the client is gone: Node hears it at once
		_ = backend.Close()
	}()
	copySmall(client, backend)
	_ = client.Close()
	<-done
}

// deadlineWriter gives each write on conn a deadline of limit from its start (0: none).
type deadlineWriter struct {
	conn  net.Conn
	limit time.Duration
}

func (w deadlineWriter) Write(b []byte) (int, error) {
	if w.limit > 0 {
		_ = w.conn.SetWriteDeadline(time.Now().Add(w.limit))
	}
	return w.conn.Write(b)
}

func copySmall(to io.Writer, from io.Reader) {
	buffer := make([]byte, upgradeCopyBytes)
	_, _ = io.CopyBuffer(struct{ io.Writer }{to}, struct{ io.Reader }{from}, buffer)
}

func copyHeader(to, from http.Header) {
	for name, values := range from {
		to[name] = append(to[name][:0:0], values...)
	}
}

// forwardedProto is X-Forwarded-Proto for a front door with TLS or without.
func forwardedProto(secure bool) string {
	if secure {
		return "https"
	}
	return "http"
}

// setForwarded appends the client's address to X-Forwarded-For (Node believes it from its own socket only).
func setForwarded(header http.Header, in *http.Request, proto string) {
	client := CanonicalAddressString(in.RemoteAddr)
	if prior := in.Header.Values("X-Forwarded-For"); len(prior) > 0 {
		client = strings.Join(prior, ", ") + ", " + client
	}
	header.Set("X-Forwarded-For", client)
	header.Set("X-Forwarded-Proto", proto)
}
