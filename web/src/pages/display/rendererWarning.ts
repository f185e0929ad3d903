/** A visible, persistent banner when the renderer runs degraded (e.g. no WebGL2). */
export function showRendererWarning(container: HTMLElement, warning: string | null): void {
  let banner = container.querySelector<HTMLElement>('.renderer-warning');
  if (warning === null) {
    banner?.remove();
    return;
  }
  if (!banner) {
    banner = document.createElement('div');
    banner.className = 'renderer-warning';
    banner.setAttribute('role', 'status');
    container.append(banner);
  }
  banner.textContent = `⚠ ${warning}`;
}
