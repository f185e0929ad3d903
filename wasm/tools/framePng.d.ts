import type { PixelLayout } from '../js/lanternaRdp.js';

export declare function encodeSurfacePng(surface: { pixels: Uint8Array; width: number; height: number; stride: number; layout: PixelLayout }): Buffer;
