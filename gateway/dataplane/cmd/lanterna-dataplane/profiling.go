package main

import (
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
)

// serveProfiles starts Go's profiler endpoints when LANTERNA_DATAPLANE_PPROF
// names a loopback address (the load test's profiling commands use it):
// /debug/pprof/profile, /heap, /allocs, /goroutine. Never on by default, and
// never on an address another machine can reach.
func serveProfiles(log *slog.Logger) error {
	address := os.Getenv("LANTERNA_DATAPLANE_PPROF")
	if address == "" {
		return nil
	}
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return errors.New("LANTERNA_DATAPLANE_PPROF must be a loopback address and port")
	}
	listener, err := net.Listen("tcp", address)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	log.Info("profiler endpoints", "address", listener.Addr().String())
	go func() { _ = http.Serve(listener, mux) }()
	return nil
}
