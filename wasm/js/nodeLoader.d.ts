import type { LanternaRdp } from './lanternaRdp.js';

/** wasm/build/, where wasm/build.sh puts the client. */
export declare const DEFAULT_BUILD_DIR: string;

/** Loads the wasm client into Node (buildDir defaults to $LANTERNA_WASM_BUILD or wasm/build/). */
export declare function loadLanternaRdp(options?: { buildDir?: string; logLevel?: string; print?: (line: string) => void }): Promise<LanternaRdp>;

/** Node has no WebCodecs: AVC420/AVC444 are never advertised there (pass as SessionOptions.videoDecoder). */
export declare const NODE_VIDEO_DECODER: import('./lanternaRdp.js').AvcSupport;

/** Loads the presenter's RDP server (lanterna-presenter.js) into Node. */
export declare function loadLanternaPresenter(options?: { buildDir?: string; logLevel?: string; print?: (line: string) => void }): Promise<import('./lanternaPresenter.js').LanternaPresenter>;
