// @lanterna/protocol: every byte format Lanterna speaks, written once. Pure:
// no I/O, no timers of its own, no Node or DOM API, so the gateway, the page,
// its workers, the lab, the load test and the wasm tests all import it.

export { FramingError, type FramingErrorCode } from './framingError.js';
export { FRAMING_MODES, framingModeFor, modeAfterPduStartingWith, nextFramingMode, TPKT_VERSION, type FramingMode, type RelayDirection, type SecurityProtocolName } from './framingMode.js';
export { DEFAULT_MAX_FRAME_BYTES, DEFAULT_MAX_PDU_BYTES, framingLimits, type FramingLimits } from './framingLimits.js';
export { MAX_HEADER_BYTES, MIN_TPKT_LENGTH, readPduHeader, readPduLength, type PduHeader, type PduKind } from './pduHeader.js';
export { coalescePdus, type PduBatch } from './pduCoalescer.js';
export { PduFramer, type PduFramerOptions, type PduFramerStats } from './pduFramer.js';
export { countWholePdus, splitWholePdus, type WholePduCount } from './wholePdus.js';
export { dropInputPdus, isInputPdu, type InputFiltered } from './inputPdus.js';
export * from './x224.js';
export {
  PduReadError,
  readOnePdu,
  type AbortSignalLike,
  type ByteSource,
  type OnePdu,
  type PduReadErrorKind,
  type ReadOnePduOptions,
} from './readOnePdu.js';
export { eventByteSource, type ChunkEmitter, type EventByteSource, type EventByteSourceOptions } from './eventByteSource.js';
export { PduStreamCounter } from './pduStreamCounter.js';
export { DISPLAY_RECONNECT_BASE_MS, DISPLAY_RECONNECT_CAP_MS, DISPLAY_WELCOME_TIMEOUT_MS, ReconnectBackoff } from './displayReconnect.js';
export {
  closeCodeFor,
  codeForClose,
  ERROR_CODES,
  isSessionErrorCode,
  SESSION_ERROR_CODES,
  SESSION_PHASES,
  sentenceForCode,
  sentenceForEngineEnd,
  type ErrorCodeEntry,
  type SessionErrorCode,
  type SessionPhase,
} from './sessionErrors.js';
export {
  FIGURES_MAX_INTERVAL_MS,
  FIGURES_MIN_INTERVAL_MS,
  LASER_MIN_INTERVAL_MS,
  GATEWAY_FEATURES,
  KIOSK_FEATURES,
  KIOSK_PROTOCOL_VERSION,
  KIOSK_SUBPROTOCOL,
  MAX_JSON_FRAME_BYTES,
  parseGatewayControlMessage,
  readGatewayControlMessage,
  parseGatewayDataMessage,
  parseKioskControlMessage,
  parseKioskDataMessage,
  type ByeMessage,
  type CloseMessage,
  type Credentials,
  type EndedMessage,
  type ErrorMessage,
  type FiguresMessage,
  type PanelMessage,
  type LaserMessage,
  type GatewayControlMessage,
  type GatewayDataMessage,
  type GatewayToKioskMessage,
  type HelloMessage,
  type KioskControlMessage,
  type KioskDataMessage,
  type KioskMessageFailure,
  type KioskMessageFailureReason,
  type KioskMessageParse,
  type OpenMessage,
  type PingMessage,
  type PongMessage,
  type ProjectMessage,
  type RoomMessage,
  type DisplayMessage,
  type LayoutMessage,
  type LayoutSlot,
  type SoundLevel,
  type SoundMessage,
  soundLevel,
  type SecuredMessage,
  type StopMessage,
  type Target,
  type WelcomeMessage,
} from './kioskMessages.js';
export { MAX_ROOM_SLOTS, ROOM_LAYOUTS, ROOM_MODES, slotPixels, slotRects, type RoomLayout, type RoomMode, type SlotRect } from './roomLayout.js';
export {
  MAX_PRESENTER_CERTIFICATE_CHARS,
  parseGatewayPresenterMessage,
  parsePresenterLegMessage,
  presenterSocketPath,
  type GatewayPresenterMessage,
  type PresenterCloseMessage,
  type PresenterPaceMessage,
  type PresenterLegMessage,
  type PresentMessage,
} from './presenterLeg.js';
export {
  assistanceSettingsSchema,
  projectSettingsSchema,
  sessionSettingsSchema,
  type AssistanceSettings,
  type ProjectSettings,
  type SessionSettings,
} from './sessionSettings.js';
export {
  DISPLAY_STATES,
  displayListingSchema,
  MAX_PRESENTER_INVITATION_CHARS,
  PRESENTER_REQUEST_HEADER,
  PRESENTER_STOP_TOKEN_HEADER,
  presenterRefusalSchema,
  LASER_POINTS_KEPT,
  laserPointsSchema,
  projectionChangeSchema,
  presenterSocketSchema,
  projectionRequestSchema,
  projectionStartedSchema,
  projectionStatusSchema,
  roomActionSchema,
  type RoomAction,
  type DisplayListing,
  type DisplayState,
  type ListedDisplay,
  type PresenterRefusal,
  type LaserPoints,
  type ProjectionChange,
  type PresenterSocket,
  type ProjectionRequestBody,
  type ProjectionStarted,
  type ProjectionStatus,
} from './presenterMessages.js';
export {
  isPresenterErrorCode,
  PRESENTER_ERROR_CODES,
  PRESENTER_ERRORS,
  sentenceForPresenterCode,
  sentenceForProjectionEnd,
  waitInWords,
  type PresenterErrorCode,
  type PresenterErrorEntry,
} from './presenterErrors.js';
export * from './timestampStrip.js';
export { KIOSK_HEARTBEAT_BINDING, KIOSK_HEARTBEAT_MS, tokenStorageKey, type KioskHeartbeat } from './displayPageContract.js';
export {
  DESKTOP_MAX_LONG_SIDE,
  DESKTOP_MAX_SHORT_SIDE,
  DESKTOP_MIN_SIDE,
  DESKTOP_SCALE_MAX,
  DESKTOP_SCALE_MIN,
  defaultDesktopScale,
  desktopForPanel,
  desktopPreferenceSchema,
  desktopSizeForPanel,
  deviceScaleFor,
  outputFromQuery,
  panelFromWindow,
  panelSchema,
  type Desktop,
  type DesktopPreference,
  type Panel,
  type PanelOutput,
} from './panelSize.js';
export { INK_MAX_PNG_BYTES, INK_PIN_HEADER, inkPath, sentenceForInkCode, whiteboardPath, type InkPictureKind, type InkRefusalCode } from './inkPictures.js';
// The Node <-> Go data plane's messages (docs/native-data-plane.md, "The contract"): one schema per op, the examples both sides check in contract/.
export {
  RPC_CONTRACT, readMessage, configureConfigSchema, endedNoticeSchema,
  type AdmitAnswer, type AdmitRequest, type CertificateAnswer, type CertificateRequest, type ConfigureConfig, type DrainRequest, type EndedError,
  type EndedNotice, type InputNotice, type OpenAnswer, type OpenRequest, type PhaseNotice, type PresentAnswer, type PresentRequest,
  type PresenterEndedNotice, type ResolveAnswer, type ResolveRequest, type SampleNotice, type SecuredNotice, type StopNotice,
} from './dataPlaneContract.js';
// How the gateway's and the kiosk launcher's commands layer and check their configuration (a file, fields over it; exit 2, --check).
export { parseConfigObject, setConfigField } from './config/configLayers.js';
export { CONFIG_ERROR_EXIT, configForCommand, type CommandConfigOptions, type CommandHost } from './config/commandConfig.js';
