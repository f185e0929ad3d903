// A canvas of exactly width×height device pixels, shown at that CSS size, for the lab pages.
export function makePixelCanvas(width: number, height: number): HTMLCanvasElement {
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  canvas.style.width = `${width / devicePixelRatio}px`;
  canvas.style.height = `${height / devicePixelRatio}px`;
  document.body.append(canvas);
  return canvas;
}
