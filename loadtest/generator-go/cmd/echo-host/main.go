// lanterna-echo-host: the load test's stand-in RDP server in Go, with the
// command line and the "listening" line of loadtest/src/echoHostMain.ts, so
// the harness starts either (`--echo-host go|node`, echoHostProcess.ts). It
// exists because the load side shares one core: per request it costs a
// fraction of what the Node echo host does, leaving that core to the
// generator (loadtest/README.md, "Echo hosts").
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"
)

func main() {
	var options echoOptions
	var noSessionTickets bool
	var host string
	var port int
	flags := flag.NewFlagSet("lanterna-echo-host", flag.ContinueOnError)
	flags.StringVar(&options.handshake, "handshake", handshakeX224ThenTLS, "x224-then-tls or tls-first")
	flags.BoolVar(&noSessionTickets, "no-session-tickets", false, "send no TLS session tickets (TLS 1.2 only)")
	flags.IntVar(&options.replyBytes, "reply-bytes", 0, "answer each request with a PDU of n bytes (default: echo)")
	flags.BoolVar(&options.sizedReplies, "sized-replies", false, "answer each request with a PDU of the size it names (mixed traffic)")
	flags.IntVar(&options.streamPduBytes, "stream-pdu-bytes", 0, "throughput mode: stream PDUs of n bytes")
	flags.StringVar(&host, "host", "127.0.0.1", "listen address")
	flags.IntVar(&port, "port", 0, "listen port (0 = any)")
	if err := flags.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	options.sessionTickets = !noSessionTickets
	if err := run(options, net.JoinHostPort(host, strconv.Itoa(port))); err != nil {
		fmt.Fprintf(os.Stderr, "echo host: %v\n", err)
		os.Exit(1)
	}
}

func run(options echoOptions, address string) error {
	certificate, certificatePem, err := loopbackCertificate("lanterna-loadtest-echo")
	if err != nil {
		return fmt.Errorf("certificate: %w", err)
	}
	server, err := newEchoServer(options, certificate)
	if err != nil {
		return err
	}
	port, err := server.listen(address)
	if err != nil {
		return err
	}
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	go server.serve()
	listening, _ := json.Marshal(struct {
		Msg            string `json:"msg"`
		Port           int    `json:"port"`
		CertificatePem string `json:"certificatePem"`
	}{"listening", port, certificatePem})
	if _, err := fmt.Fprintf(os.Stdout, "%s\n", listening); err != nil {
		return err
	}
	<-signals
	server.close()
	return nil
}
