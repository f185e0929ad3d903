// @lanterna/protocol/wsd: WS-Discovery, DPWS metadata and the projector
// service, as pure readers and writers. A subpath of its own so the display
// page's bundle never carries the XML parser.
export * from './wsdConstants.js';
export { repetitionSchedule } from './soapTimings.js';
export { escapeXml, readEnvelope, utf8Bytes, WsdMessageError, type AppSequence, type SoapEnvelope, type SoapHeader, type WsdFailureReason } from './soapEnvelope.js';
export { type ProbeBody, type TargetDescription } from './discoveryMessages.js';
export { probeMatches, scopesMatch, typesMatch, type ProbeVerdict } from './scopeMatching.js';
export { type DeviceMetadata, type DisplayState, type HostedService } from './deviceMetadata.js';
export { PROJECTOR_FAULTS, projectorFault, projectorFaultOf, type ConnectRequest, type ConnectResponse, type DisconnectRequest, type ProjectorFault, type SoapFault } from './projectorMessages.js';
export { readWsdMessage, writeWsdMessage, type MessageHeader, type WsdMessage, type WsdMessageKind, type WsdRead } from './wsdMessage.js';
