// A QR code as an SVG element, drawn with DOM calls (no markup strings, no
// inline styles: the gateway's CSP allows neither), one path for all dark
// modules so it stays crisp at any size. Encoding is qrcode-generator's.
import qrcode from 'qrcode-generator';

const SVG = 'http://www.w3.org/2000/svg';
/** The quiet zone the standard asks for around the symbol, in modules. */
const QUIET_MODULES = 4;

/**
 * Error correction M (15 %): a screen seen from a seat at an angle, with a
 * glare spot, still scans; H would make the modules smaller for no gain here.
 */
export function qrSvg(text: string, label: string): SVGSVGElement {
  const code = qrcode(0, 'M');
  code.addData(text, 'Byte');
  code.make();
  const count = code.getModuleCount();
  const size = count + 2 * QUIET_MODULES;
  let path = '';
  for (let row = 0; row < count; row += 1) {
    for (let col = 0; col < count; col += 1) {
      if (code.isDark(row, col)) path += `M${col + QUIET_MODULES} ${row + QUIET_MODULES}h1v1h-1z`;
    }
  }
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${size} ${size}`);
  svg.setAttribute('shape-rendering', 'crispEdges');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  svg.dataset.text = text;
  const background = document.createElementNS(SVG, 'rect');
  background.setAttribute('width', String(size));
  background.setAttribute('height', String(size));
  background.setAttribute('fill', '#ffffff');
  const modules = document.createElementNS(SVG, 'path');
  modules.setAttribute('d', path);
  modules.setAttribute('fill', '#000000');
  svg.append(background, modules);
  return svg;
}
