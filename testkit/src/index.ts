// @lanterna/testkit: test-only code shared by every workspace's tests. No
// product package imports it (see README.md).

// The real gateway, in process (not a stand-in).
export { startTestGateway, type TestGateway } from './testGateway.js';
export { startProjectingGateway, type ProjectingGateway, type Projection, type ProjectionTarget } from './projectingGateway.js';

// The one stand-in for the gateway's sockets, and what it can do on a data socket.
export { GatewayStandIn, type GatewayStandInOptions, type StandInDisplay, type DataSocketRecord, type DataSocketPlay, type DataScript } from './gatewayStandIn.js';
export { replayRecording, scriptedHandshake, dropOnFirstBinary, securedWithoutServer, tlsConnectionConfirm, isConnectionRequest, type RecordingReplay, type HandshakeScript } from './standInScripts.js';

// Peers and drivers around a gateway.
export { startFaultyPeer, generateTestCertificate, SLOW_CONFIRM_MS, STREAM_REQUEST, STREAM_PDU_BYTES, STREAM_END, type FaultyPeer, type PeerBehaviour } from './faultyRdpPeer.js';
export { connectControl, openData, openSecuredData, MessageQueue, type ControlSession } from './kioskTestClient.js';
export { openControlInbox, type ControlInbox, type ControlMessage } from './controlInbox.js';
export { startReconnectingKiosk, type ReconnectingKiosk, type KioskSession } from './reconnectingKiosk.js';
export { startNativeClientBridge, type BridgeOptions, type BridgeObservation } from './nativeClientBridge.js';
export { readOneTpkt } from './socketPdu.js';
export { findServerKeyFiles, type LabServerKind } from './labServerKeys.js';
export { startRecordingTlsProxy, type RecordingTlsProxy, type ProxiedPdu } from './recordingTlsProxy.js';

// Page tests: Chromium, the built pages served with the gateway's headers, pixels.
export { launchChromium, openWatchedPage, chromiumPath, baseFlags, webGlFlags, type WatchedPage, type WebGlBackend } from './chromium.js';
export { startStaticServer, isolationHeaders, type StaticServer } from './staticServer.js';
export { servePagesInChromium, type ServedPages } from './servedPages.js';
export { publicDir, labDir } from './webDist.js';
export { firstPixelDifference } from './pixelCompare.js';
export { waitFor, withDeadline } from './waiting.js';

// Real processes around gateways: the gateway's CLI and the demo as children, Redis, HAProxy (a farm).
export { startGatewayProcess, type GatewayProcess } from './gatewayProcess.js';
export { startDemo, type DemoRun } from './demoRun.js';
export { startRedis, redisServerPath, type RedisServer } from './redisServer.js';
export { haproxyConfig, type HaproxyConfigOptions } from './haproxyConfig.js';
export { startHaproxyProcess, haproxyPath, type HaproxyProcess } from './haproxyProcess.js';
// A LAN of two network namespaces (gateway, presenter) for multicast tests.
export { createLan, addNamespaces, removeNamespaces, runCommand, type Lan, type LanSide } from './lanNamespaces.js';
export { helloOutcome, type HelloOutcome } from './displayHello.js';
