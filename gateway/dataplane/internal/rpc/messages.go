package rpc

// The contract's messages (docs/native-data-plane.md, "RPC"), as Go types.
// Field names are the JSON ones; Node sends every field of configure.

// Operations.
const (
	OpConfigure   = "configure"
	OpReady       = "ready"
	OpFatal       = "fatal"
	OpStop        = "stop"
	OpDrain       = "drain"
	OpAdmit       = "admit"
	OpOpen        = "open"
	OpResolve     = "resolve"
	OpCertificate = "certificate"
	OpPhase       = "phase"
	OpSecured     = "secured"
	OpEnded       = "ended"
	OpSample      = "sample"
	// OpPresent: a presenter page's first message, for Node to judge (docs/browser-presenter.md).
	OpPresent = "present"
	// OpPresenterEnded: a presenter page's socket ended (its error, if any, for Node's logs and metrics).
	OpPresenterEnded = "presenter-ended"
	// OpInput: Node's word on whether the display's input may reach the session's server (issue 30: the presenter's permission).
	OpInput = "input"
)

// ErrorEntry is one row of the kiosk protocol's error table.
type ErrorEntry struct {
	Message string `json:"message"`
	Close   int    `json:"close"`
}

// Listen is where the front door listens.
type Listen struct {
	Host string `json:"host"`
	Port int    `json:"port"`
	TLS  bool   `json:"tls"`
	// CertPem, KeyPem: only with TLS (Node leaves them out otherwise)
	CertPem   string `json:"certPem,omitempty"`
	KeyPem    string `json:"keyPem,omitempty"`
	ReusePort bool   `json:"reusePort"`
}

// Relay is the pump's configuration (relay.* in the gateway's).
type Relay struct {
	// PresenterBytesPerSecond: a presenter page's socket is read at most this fast (one second's burst; 0: no cap).
	PresenterBytesPerSecond int `json:"presenterBytesPerSecond"`
	HighWaterBytes          int `json:"highWaterBytes"`
	LowWaterBytes           int `json:"lowWaterBytes"`
	MaxFrameBytes           int `json:"maxFrameBytes"`
	IdleTimeoutMs           int `json:"idleTimeoutMs"`
	// MaxBacklogBytes caps what waits for a leg that does not read (0: none).
	MaxBacklogBytes int `json:"maxBacklogBytes"`
}

// Timeouts in milliseconds (timeouts.* in the gateway's configuration).
type Timeouts struct {
	HelloMs        int `json:"helloMs"`
	RequestMs      int `json:"requestMs"`
	ConnectMs      int `json:"connectMs"`
	ConfirmMs      int `json:"confirmMs"`
	TLSMs          int `json:"tlsMs"`
	HTTPHeadersMs  int `json:"httpHeadersMs"`
	HTTPRequestMs  int `json:"httpRequestMs"`
	TLSHandshakeMs int `json:"tlsHandshakeMs"`
	// WriteMs bounds every write that waits for the peer's room (0: none).
	WriteMs int `json:"writeMs"`
}

// Limits (limits.* in the gateway's configuration).
type Limits struct {
	MaxConnections        int `json:"maxConnections"`
	PerAddressConnections int `json:"perAddressConnections"`
	MaxPendingSockets     int `json:"maxPendingSockets"`
	// PerSourcePendingSockets: of those, from one IPv4 address or IPv6 /64.
	PerSourcePendingSockets int `json:"perSourcePendingSockets"`
	// PerNetworkConnections: open connections from one IPv6 /64.
	PerNetworkConnections int `json:"perNetworkConnections"`
	MaxSessions           int `json:"maxSessions"`
	// MaxHeaderBytes bounds a request's head, as Node's maxHeaderSize (0: Go's default).
	MaxHeaderBytes int `json:"maxHeaderBytes"`
}

// Config is configure's config: the first line Node sends.
type Config struct {
	Listen            Listen                `json:"listen"`
	UpstreamSocket    string                `json:"upstreamSocket"`
	Relay             Relay                 `json:"relay"`
	Timeouts          Timeouts              `json:"timeouts"`
	Limits            Limits                `json:"limits"`
	RequireNla        bool                  `json:"requireNla"`
	CaPem             string                `json:"caPem,omitempty"`
	MaxJSONFrameBytes int                   `json:"maxJsonFrameBytes"`
	Subprotocol       string                `json:"subprotocol"`
	Errors            map[string]ErrorEntry `json:"errors"`
	// PeerDir: the directory the gateway's workers' data planes share, each
	// listening there for its siblings (a presenter page and its display on
	// different workers); absent with one process.
	PeerDir string `json:"peerDir,omitempty"`
}

// Configure is the configure message.
type Configure struct {
	Config Config `json:"config"`
}

// Stop is Node's stop notification (an admin's stop).
type Stop struct {
	SessionID string `json:"sessionId"`
	Reason    string `json:"reason"`
}

// Input is Node's input notification: whether the display's input PDUs
// reach the server (the presenter allowed control) or are dropped (the
// default, and after a revoke).
type Input struct {
	SessionID string `json:"sessionId"`
	Allowed   bool   `json:"allowed"`
}

// Drain is Node's drain request.
type Drain struct {
	DeadlineMs int `json:"deadlineMs"`
}

// Ready says the front door listens.
type Ready struct {
	Port int `json:"port"`
}

// Fatal says the data plane cannot run; it exits 1 after it.
type Fatal struct {
	Message string `json:"message"`
}

// AdmitRequest asks whether an upgrade of a data socket may go on.
type AdmitRequest struct {
	Host          string `json:"host"`
	Origin        string `json:"origin,omitempty"`
	ClientAddress string `json:"clientAddress"`
}

// AdmitAnswer: Status 0 lets it go on; 421, 403 or 503 refuse it with that status.
type AdmitAnswer struct {
	Status int `json:"status"`
}

// OpenRequest: the display's open message, for the broker.
type OpenRequest struct {
	SessionID     string `json:"sessionId"`
	Token         string `json:"token"`
	ClientAddress string `json:"clientAddress"`
}

// OpenAnswer: the broker granted the session.
type OpenAnswer struct {
	DisplayID string `json:"displayId"`
	// Presenter: a browser-source session, whose server leg is its presenter
	// page's socket on this data plane (no resolve, no TCP, no TLS of ours).
	Presenter bool `json:"presenter,omitempty"`
}

// PresentRequest: a presenter page's first message on its socket, whole,
// for Node to judge (its schema, the token-guess budget, the single-use
// presenter token). Message is absent when the page sent binary.
type PresentRequest struct {
	SessionID     string  `json:"sessionId"`
	Message       *string `json:"message,omitempty"`
	ClientAddress string  `json:"clientAddress"`
}

// PresentAnswer: the page may wait WaitMs for its display; what the display's
// secured will say of the leg (the page's certificate, key and fingerprint).
type PresentAnswer struct {
	WaitMs       int      `json:"waitMs"`
	Certificates []string `json:"certificates"`
	PublicKey    string   `json:"publicKey"`
	Fingerprint  string   `json:"fingerprint"`
}

// PresenterEnded: a presenter page's socket that reached present has ended.
type PresenterEnded struct {
	SessionID string      `json:"sessionId"`
	Reason    string      `json:"reason"`
	Error     *EndedError `json:"error,omitempty"`
}

// ResolveRequest asks for the grant's target, after the Connection Request was read and checked.
type ResolveRequest struct {
	SessionID string `json:"sessionId"`
}

// ResolveAnswer is the target and the first resolved address the policy allows.
type ResolveAnswer struct {
	Host    string `json:"host"`
	Port    int    `json:"port"`
	Address string `json:"address"`
}

// CertificateRequest asks Node's certificate policy about the server's certificate.
type CertificateRequest struct {
	SessionID   string `json:"sessionId"`
	Host        string `json:"host"`
	Port        int    `json:"port"`
	Address     string `json:"address"`
	Fingerprint string `json:"fingerprint"`
	CAVerified  bool   `json:"caVerified"`
	CAError     string `json:"caError,omitempty"`
}

// CertificateAnswer is the trust Node gives the certificate.
type CertificateAnswer struct {
	Trust string `json:"trust"`
}

// Phase is one handshake phase's duration, for the handshake histogram.
type Phase struct {
	Phase string  `json:"phase"`
	Ms    float64 `json:"ms"`
}

// Secured: the server leg is secured and the relay starts.
type Secured struct {
	SessionID   string `json:"sessionId"`
	Address     string `json:"address"`
	Protocol    string `json:"protocol"`
	TLSVersion  string `json:"tlsVersion"`
	Cipher      string `json:"cipher"`
	Trust       string `json:"trust"`
	Fingerprint string `json:"fingerprint"`
}

// EndedError is how a session that ended in an error ended.
type EndedError struct {
	Phase    string         `json:"phase"`
	Code     string         `json:"code"`
	Message  string         `json:"message"`
	Detail   map[string]any `json:"detail"`
	Internal map[string]any `json:"internal"`
}

// Ended: a data socket that reached open has ended.
type Ended struct {
	SessionID string      `json:"sessionId"`
	Reason    string      `json:"reason"`
	Seconds   float64     `json:"seconds"`
	Error     *EndedError `json:"error,omitempty"`
}

// Reasons of Ended.
const (
	ReasonClientClosed    = "client-closed"
	ReasonServerClosed    = "server-closed"
	ReasonStopped         = "stopped"
	ReasonGatewayShutdown = "gateway-shutdown"
	ReasonError           = "error"
)

// SessionSample is one granted session's totals since it started relaying.
type SessionSample struct {
	SessionID       string `json:"sessionId"`
	BytesToDisplay  uint64 `json:"bytesToDisplay"`
	BytesToServer   uint64 `json:"bytesToServer"`
	PdusToDisplay   uint64 `json:"pdusToDisplay"`
	FramesToDisplay uint64 `json:"framesToDisplay"`
}

// Tally is the relay's counters since the previous sample (relayTally's fields).
type Tally struct {
	BytesToKiosk   uint64 `json:"bytesToKiosk"`
	PdusToKiosk    uint64 `json:"pdusToKiosk"`
	FramesToKiosk  uint64 `json:"framesToKiosk"`
	BytesToServer  uint64 `json:"bytesToServer"`
	PdusToServer   uint64 `json:"pdusToServer"`
	FramesToServer uint64 `json:"framesToServer"`
	CopiedBytes    uint64 `json:"copiedBytes"`
	Pauses         uint64 `json:"pauses"`
}

// Latency is the relay-latency histogram's observations since the previous
// sample: Counts[i] fell at or under Bounds[i] seconds and above the bound
// before it; the last count is over the last bound. Sum is in seconds.
type Latency struct {
	Bounds []float64 `json:"bounds"`
	Counts []uint64  `json:"counts"`
	Sum    float64   `json:"sum"`
}

// Sample is the once-a-second notification. When every session would not
// fit one line, the sessions come in several sample lines in the same
// second, and only the first carries Tally and Latency.
type Sample struct {
	Sessions []SessionSample `json:"sessions"`
	Tally    *Tally          `json:"tally,omitempty"`
	Latency  *Latency        `json:"latency,omitempty"`
}
