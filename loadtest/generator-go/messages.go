package main

// The coordinator's messages, one JSON object per line on stdin, and the
// generator's answers on stdout: the shapes of loadtest/src/generatorProtocol.ts,
// plus the wire details the TypeScript side adds (goGeneratorChild.ts) so that
// nothing the protocol package owns is written twice.

type trafficPattern struct {
	UpBytes    int `json:"upBytes"`
	DownBytes  int `json:"downBytes"`
	IntervalMs int `json:"intervalMs"`
}

type relayTarget struct {
	Kind    string `json:"kind"` // lanterna | websockify | pipe | direct
	BaseURL string `json:"baseUrl"`
	URL     string `json:"url"`
	Host    string `json:"host"`
	Port    int    `json:"port"`
	// For wss:// (--kiosk-tls): the relay's self-signed certificate, the only
	// authority trusted for it (trust.go).
	CaPem string `json:"caPem,omitempty"`
}

// wireDetails come from @lanterna/protocol on the TypeScript side.
type wireDetails struct {
	Subprotocol     string `json:"subprotocol"`
	ProtocolVersion int    `json:"protocolVersion"`
	Client          string `json:"client"`
	// One request PDU (TPKT), sent every interval.
	RequestPdu []byte `json:"requestPdu"`
	// The X.224 Connection Request of the direct and websockify/pipe paths.
	ConnectionRequest []byte `json:"connectionRequest"`
}

type displayAssignment struct {
	ID    string `json:"id"`
	Token string `json:"token"`
	Index int    `json:"index"`
	// The X.224 Connection Request this display sends through the gateway (its cookie).
	ConnectionRequest []byte `json:"connectionRequest"`
	// Source address, when the target wants one per display (farm behind HAProxy).
	LocalAddress string `json:"localAddress,omitempty"`
}

type coordinatorMessage struct {
	Type               string              `json:"type"`
	Target             *relayTarget        `json:"target,omitempty"`
	Pattern            *trafficPattern     `json:"pattern,omitempty"`
	ConnectConcurrency int                 `json:"connectConcurrency"`
	ConnectTimeoutMs   int                 `json:"connectTimeoutMs"`
	Wire               *wireDetails        `json:"wire,omitempty"`
	Displays           []displayAssignment `json:"displays,omitempty"`
}

type openedMessage struct {
	Type       string  `json:"type"`
	Opened     int     `json:"opened"`
	Failed     int     `json:"failed"`
	FirstError *string `json:"firstError,omitempty"`
}

type openProgressMessage struct {
	Type   string `json:"type"`
	Opened int    `json:"opened"`
	Failed int    `json:"failed"`
}

type windowMessage struct {
	Type            string  `json:"type"`
	Histogram       string  `json:"histogram"`
	Sent            int64   `json:"sent"`
	Received        int64   `json:"received"`
	Failures        int64   `json:"failures"`
	LastFailure     *string `json:"lastFailure,omitempty"`
	Alive           int     `json:"alive"`
	LateOutstanding int     `json:"lateOutstanding"`
	CPUCores        float64 `json:"cpuCores"`
	LoopDelayP99Ms  float64 `json:"loopDelayP99Ms"`
	LoopDelayMaxMs  float64 `json:"loopDelayMaxMs"`
	WallSeconds     float64 `json:"wallSeconds"`
}
