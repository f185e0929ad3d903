// lanterna-dataplane: the gateway's native data plane (docs/native-data-plane.md).
// Started by one gateway process with its RPC stream on file descriptor 3:
// it reads configure, listens on the gateway's port, says ready (or fatal,
// and exits 1), serves data sockets and passes everything else to Node, and
// exits when the stream closes (Node is gone) or on SIGTERM, ending its
// sessions with gateway-shutdown first.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gorilla/websocket"

	"lanterna/dataplane/internal/datasession"
	"lanterna/dataplane/internal/frontdoor"
	"lanterna/dataplane/internal/rpc"
)

// sampleInterval: each session's figures reach Node once per interval (in datasession.SampleSlices slices).
const sampleInterval = time.Second

func main() {
	os.Exit(run())
}

func run() int {
	level := slog.LevelInfo
	if os.Getenv("LANTERNA_DATAPLANE_DEBUG") != "" {
		level = slog.LevelDebug
	}
	log := rpc.NewLogger(os.Stderr, level)
	channel := os.NewFile(3, "rpc")
	if channel == nil {
		log.Error("no rpc stream on file descriptor 3")
		return 2
	}
	conn := rpc.New(channel, channel)

	configured := make(chan rpc.Config, 1)
	// set once started; read by the rpc handler
	var current atomic.Pointer[process]
	handle := func(message rpc.Incoming) {
		switch message.Op {
		case rpc.OpConfigure:
			var configure rpc.Configure
			if err := json.Unmarshal(message.Raw, &configure); err != nil {
				log.Error("configure is not readable", "err", err.Error())
				return
			}
			select {
			case configured <- configure.Config:
			default:
				log.Warn("configure again: ignored")
			}
		case rpc.OpStop:
			var stop rpc.Stop
			if p := current.Load(); p != nil && json.Unmarshal(message.Raw, &stop) == nil {
				p.engine.Stop(stop.SessionID, stop.Reason)
			}
		case rpc.OpInput:
			var input rpc.Input
			if p := current.Load(); p != nil && json.Unmarshal(message.Raw, &input) == nil {
				p.engine.SetInput(input.SessionID, input.Allowed)
			}
		case rpc.OpDrain:
			var drain rpc.Drain
			_ = json.Unmarshal(message.Raw, &drain)
			id := message.ID
			go func(p *process) {
				if p != nil {
					p.door.StopAccepting()
					p.engine.Drain(time.Duration(drain.DeadlineMs) * time.Millisecond)
				}
				if id != nil {
					_ = conn.Reply(*id, nil)
				}
			}(current.Load())
		default:
			log.Warn("an rpc operation this data plane does not know", "op", message.Op)
		}
	}
	served := make(chan error, 1)
	go func() {
		served <- conn.Serve(handle, func(reason string) { log.Warn("rpc line dropped", "reason", reason) })
	}()
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	if err := serveProfiles(log); err != nil {
		// a profiling run's mistake, not the gateway's: it serves without
		log.Warn("no profiler endpoints", "err", err.Error())
	}

	var config rpc.Config
	select {
	case config = <-configured:
	case err := <-served:
		log.Error("the rpc stream ended before configure", "err", fmt.Sprint(err))
		return 1
	case <-signals:
		return 0
	}
	p, err := start(config, conn, log)
	if err != nil {
		_ = conn.Notify(rpc.OpFatal, rpc.Fatal{Message: err.Error()})
		log.Error("cannot start", "err", err.Error())
		return 1
	}
	current.Store(p)
	if err := conn.Notify(rpc.OpReady, rpc.Ready{Port: p.door.Port()}); err != nil {
		log.Error("cannot say ready", "err", err.Error())
		return 1
	}
	log.Info("data plane listening", "port", p.door.Port(), "tls", config.Listen.TLS)

	ticker := time.NewTicker(sampleInterval / datasession.SampleSlices)
	defer ticker.Stop()
	slot := 0
	for {
		select {
		case <-ticker.C:
			if err := sendSample(conn, p.engine.SampleSlice(slot)); err != nil {
				log.Warn("sample not sent", "err", err.Error())
			}
			slot = (slot + 1) % datasession.SampleSlices
		case err := <-served:
			log.Info("the rpc stream closed: ending every session", "err", fmt.Sprint(err))
			p.shutdown()
			return 0
		case <-signals:
			p.shutdown()
			return 0
		}
	}
}

type process struct {
	engine *datasession.Engine
	door   *frontdoor.FrontDoor
	// peers: where sibling data planes ask for presenter pages (nil with one process)
	peers net.Listener
}

func start(config rpc.Config, conn *rpc.Conn, log *slog.Logger) (*process, error) {
	if config.Relay.MaxFrameBytes <= 0 || config.MaxJSONFrameBytes <= 0 {
		return nil, errors.New("configure lacks relay.maxFrameBytes or maxJsonFrameBytes")
	}
	var roots *x509.CertPool
	if config.CaPem != "" {
		roots = x509.NewCertPool()
		if !roots.AppendCertsFromPEM([]byte(config.CaPem)) {
			return nil, errors.New("caPem holds no certificate")
		}
	}
	var certificate *tls.Certificate
	if config.Listen.TLS {
		pair, err := tls.X509KeyPair([]byte(config.Listen.CertPem), []byte(config.Listen.KeyPem))
		if err != nil {
			return nil, fmt.Errorf("the gateway's certificate: %w", err)
		}
		certificate = &pair
	}
	node := datasession.RPCNode{Conn: conn, OnNotifyError: func(op string, err error) {
		log.Warn("notification not sent", "op", op, "err", err.Error())
	}}
	engine := datasession.NewEngine(datasession.Options{
		Relay: config.Relay, Timeouts: config.Timeouts, MaxSessions: config.Limits.MaxSessions,
		RequireNla: config.RequireNla, Roots: roots, MaxJSONFrameBytes: config.MaxJSONFrameBytes, Errors: config.Errors,
	}, node, log)
	// siblings first: a display that arrives at once may look for its page on them
	var peers net.Listener
	if config.PeerDir != "" {
		var err error
		if peers, err = engine.ListenPeers(config.PeerDir); err != nil {
			return nil, fmt.Errorf("cannot listen for sibling data planes in %s: %w", config.PeerDir, err)
		}
	}
	ms := func(value int) time.Duration { return time.Duration(value) * time.Millisecond }
	door, err := frontdoor.Listen(context.Background(), frontdoor.Options{
		Host: config.Listen.Host, Port: config.Listen.Port, ReusePort: config.Listen.ReusePort, Certificate: certificate,
		UpstreamSocket: config.UpstreamSocket, Subprotocol: config.Subprotocol,
		MaxConnections: config.Limits.MaxConnections, PerAddressConnections: config.Limits.PerAddressConnections,
		MaxPendingSockets: config.Limits.MaxPendingSockets,
		TLSHandshake:      ms(config.Timeouts.TLSHandshakeMs), HTTPHeaders: ms(config.Timeouts.HTTPHeadersMs), HTTPRequest: ms(config.Timeouts.HTTPRequestMs),
		AdmitTimeout: ms(config.Timeouts.HTTPHeadersMs),
		WriteStall:   ms(config.Timeouts.WriteMs), MaxHeaderBytes: config.Limits.MaxHeaderBytes,
		Admit: func(ctx context.Context, host, origin, clientAddress string) (int, error) {
			var answer rpc.AdmitAnswer
			refusal, err := conn.Call(ctx, rpc.OpAdmit, rpc.AdmitRequest{Host: host, Origin: origin, ClientAddress: clientAddress}, &answer)
			if err != nil {
				return 0, err
			}
			if refusal != nil {
				return 0, refusal
			}
			return answer.Status, nil
		},
		Session: func(ws *websocket.Conn, sessionID, clientAddress string, granted func()) {
			engine.Serve(ws, sessionID, clientAddress, granted)
		},
		Presenter: func(ws *websocket.Conn, sessionID, clientAddress string, granted func()) {
			engine.ServePresenter(ws, sessionID, clientAddress, granted)
		},
		Log: log,
		// data sockets' places per source (IPv4 address, IPv6 /64)
		PerSourcePendingSockets: config.Limits.PerSourcePendingSockets,
		PerNetworkConnections:   config.Limits.PerNetworkConnections,
	})
	if err != nil {
		if peers != nil {
			_ = peers.Close()
		}
		return nil, fmt.Errorf("cannot listen on %s:%d: %w", config.Listen.Host, config.Listen.Port, err)
	}
	return &process{engine: engine, door: door, peers: peers}, nil
}

// shutdown ends every session with gateway-shutdown and closes the front door.
func (p *process) shutdown() {
	p.door.StopAccepting()
	p.engine.Drain(0)
	if p.peers != nil {
		_ = p.peers.Close()
	}
	_ = p.door.Close()
}

// sendSample sends the sample, in several lines when one would pass the
// line limit (the tally and latency with the first).
func sendSample(conn *rpc.Conn, sample rpc.Sample) error {
	if len(sample.Sessions) == 0 && *sample.Tally == (rpc.Tally{}) && allZero(sample.Latency.Counts) {
		return nil
	}
	return sendSampleLines(conn, sample)
}

func sendSampleLines(conn *rpc.Conn, sample rpc.Sample) error {
	err := conn.Notify(rpc.OpSample, sample)
	if !errors.Is(err, rpc.ErrLineTooLong) || len(sample.Sessions) < 2 {
		return err
	}
	half := len(sample.Sessions) / 2
	if err := sendSampleLines(conn, rpc.Sample{Sessions: sample.Sessions[:half], Tally: sample.Tally, Latency: sample.Latency}); err != nil {
		return err
	}
	return sendSampleLines(conn, rpc.Sample{Sessions: sample.Sessions[half:]})
}

func allZero(counts []uint64) bool {
	for _, count := range counts {
		if count != 0 {
			return false
		}
	}
	return true
}
