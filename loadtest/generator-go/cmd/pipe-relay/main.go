// lanterna-pipe-relay: the least a Go relay does, as `--relay pipe-go`, the
// native counterpart of the Node pipe (loadtest/src/pipeRelay.ts): each
// WebSocket (ws://, or wss:// with a certificate) to a TLS connection to one
// target, bytes both ways — a binary message is one TLS write, a TLS read is
// one binary message. No kiosk protocol, framing or metrics; the client sends
// its X.224 Connection Request over the WebSocket and the echo host
// (tls-first) confirms inside TLS, as for the Node pipe. Backpressure is the
// blocking writes themselves. Prints one JSON line when listening.
package main

import (
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/gorilla/websocket"
)

const (
	maxMessageBytes = 1 << 20
	// one TLS record's plaintext
	readBufferBytes = 16 << 10
	dialTimeout     = 15 * time.Second
)

func main() {
	flags := flag.NewFlagSet("lanterna-pipe-relay", flag.ContinueOnError)
	targetPort := flags.Int("target-port", 0, "target TLS port (required)")
	targetHost := flags.String("target-host", "127.0.0.1", "target host")
	host := flags.String("host", "127.0.0.1", "listen address")
	port := flags.Int("port", 0, "listen port (0 = any)")
	certFile := flags.String("tls-cert-file", "", "listen on wss:// with this certificate (PEM; needs --tls-key-file)")
	keyFile := flags.String("tls-key-file", "", "the certificate's private key (PEM)")
	if err := flags.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if err := run(net.JoinHostPort(*host, strconv.Itoa(*port)), net.JoinHostPort(*targetHost, strconv.Itoa(*targetPort)), *targetPort, *certFile, *keyFile); err != nil {
		fmt.Fprintf(os.Stderr, "pipe relay: %v\n", err)
		os.Exit(1)
	}
}

func run(address, target string, targetPort int, certFile, keyFile string) error {
	if targetPort == 0 {
		return fmt.Errorf("--target-port is required")
	}
	if (certFile == "") != (keyFile == "") {
		return fmt.Errorf("--tls-cert-file and --tls-key-file go together")
	}
	server := &http.Server{
		Handler:           relayHandler(target),
		ReadHeaderTimeout: dialTimeout,
		// HTTP/1.1 only: a WebSocket upgrade is not an HTTP/2 request
		TLSNextProto: map[string]func(*http.Server, *tls.Conn, http.Handler){},
	}
	if certFile != "" {
		certificate, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return err
		}
		server.TLSConfig = &tls.Config{Certificates: []tls.Certificate{certificate}, NextProtos: []string{"http/1.1"}}
	}
	listener, err := net.Listen("tcp", address)
	if err != nil {
		return err
	}
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	served := make(chan error, 1)
	go func() {
		if server.TLSConfig != nil {
			served <- server.ServeTLS(listener, "", "")
		} else {
			served <- server.Serve(listener)
		}
	}()
	listening, _ := json.Marshal(map[string]any{"msg": "listening", "port": listener.Addr().(*net.TCPAddr).Port})
	fmt.Println(string(listening))
	select {
	case <-signals:
		// the relayed connections end with the process
		return nil
	case err := <-served:
		return err
	}
}

func relayHandler(target string) http.Handler {
	upgrader := websocket.Upgrader{
		// buffer sizes unset: the HTTP server's own 4 KB buffers serve the
		// connection; they bound no message (a write goes out as one frame).
		// No origin check, as ws (the clients are the load test's).
		CheckOrigin: func(*http.Request) bool { return true },
	}
	// a measuring stick toward the load test's self-signed echo host, not a trust decision
	targetTLS := &tls.Config{InsecureSkipVerify: true}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := upgrader.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		ws.SetReadLimit(maxMessageBytes)
		// Go sets TCP_NODELAY on every TCP socket, both legs
		conn, err := tls.DialWithDialer(&net.Dialer{Timeout: dialTimeout}, "tcp", target, targetTLS)
		if err != nil {
			return
		}
		defer conn.Close()
		go targetToKiosk(conn, ws)
		kioskToTarget(ws, conn)
	})
}

// kioskToTarget: each binary message, one TLS write (one buffer for the connection's life).
func kioskToTarget(ws *websocket.Conn, conn *tls.Conn) {
	buf := make([]byte, readBufferBytes)
	for {
		kind, message, err := ws.NextReader()
		if err != nil {
			return
		}
		if kind != websocket.BinaryMessage {
			continue
		}
		if _, err := io.CopyBuffer(conn, message, buf); err != nil {
			return
		}
	}
}

// targetToKiosk: each TLS read, one binary message; the end of either side ends both.
func targetToKiosk(conn *tls.Conn, ws *websocket.Conn) {
	defer ws.Close()
	defer conn.Close()
	buf := make([]byte, readBufferBytes)
	for {
		n, err := conn.Read(buf)
		if n > 0 {
			if werr := ws.WriteMessage(websocket.BinaryMessage, buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
