// Public API of the test lab: start real components, check readiness, clean up.
export { Lab, type LabOptions, type DisplayOptions } from './lab.js';
export type { LabDisplay } from './display/xDisplay.js';
export { captureScreen } from './display/screenshot.js';
export type { SceneName } from './scenes/scenePlan.js';
export { SCENE_NAMES } from './scenes/scenePlan.js';
export { KIOSK_CHROMIUM_FLAGS } from './scenes/animationScene.js';
export { type RgbImage, compareImages, describeDifference, createImage, type ImageDifference } from './image/rgbImage.js';
export { generateReferenceImage } from './image/referenceImage.js';
export { decodeXwd } from './image/xwdDecoder.js';
export { startChild, runOnce, SupervisedChild, LAB_TAG_VARIABLE, type ChildSpec, type RunOnceSpec } from './process/childSupervisor.js';
export { ComponentStartError } from './process/componentStartError.js';
export { portOpen, logLineMatches, xDisplayAnswers, customProbe, type ReadinessCheck } from './process/readiness.js';
export { allocateFreePort } from './process/freePort.js';
export type { RdpEndpoint } from './servers/rdpEndpoint.js';
export type { ShadowServer, ShadowServerOptions } from './servers/shadowServer.js';
export { fetchRdpCertificate } from './servers/rdpTlsCertificate.js';
export { probeNative, type ProbeNativeOptions, type ProbeNativeResult } from './client/probeNative.js';
export { NativeProbeError } from './client/nativeProbeError.js';
