// Public API of the kiosk launcher, for embedding it (the demo) or driving it in tests.
export { KioskSupervisor, type KioskEvent, type KioskSupervisorOptions, type ReloadReason, type RelaunchReason } from './kioskSupervisor.js';
export { loadKioskConfig, kioskConfigSchema, KioskConfigError, displayPageUrl, type KioskConfig, type KioskFlags } from './kioskConfig.js';
export { readGatewayCertificatePins, spkiPin } from './gatewayCertificatePins.js';
export { probeGateway, type GatewayProbeResult } from './gatewayProbe.js';
export { chromiumFlags, resolveWebgl } from './chromiumFlags.js';
