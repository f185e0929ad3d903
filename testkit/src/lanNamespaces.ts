// A two-computer LAN that exists only for a test: the test's own network
// namespace (where the gateway runs, reachable on 127.0.0.1 as usual) joined
// by a veth pair to a new namespace standing for a presenter's computer, with
// IPv4 addresses and fixed IPv6 link-local ones (no duplicate address
// detection to wait for). A gateway told to serve only that veth keeps
// WS-Discovery's multicast (239.255.255.250, ff02::c) on the link: nothing
// reaches the machine's real networks. Needs root (CI runs as root).
// remove() deletes the namespace and with it the link.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

export interface LanSide {
  /** The namespace's name (`ip netns exec NAME …`); undefined for the test's own. */
  readonly namespace: string | undefined;
  readonly interfaceName: string;
  readonly ipv4: string;
  readonly ipv6LinkLocal: string;
}

export interface Lan {
  /** The test's own namespace end: a gateway started by the test (in process or not) serves this interface. */
  readonly gateway: LanSide;
  /** Another computer: a namespace of its own. */
  readonly presenter: LanSide & { readonly namespace: string };
  /** A second IPv4 address on the presenter's link: another computer, as far as source addresses go. */
  readonly neighbourIpv4: string;
  /** argv prefix that runs a command on the presenter's side. */
  readonly presenterExec: readonly string[];
  remove(): void;
}

/** Runs a command and throws with its stderr. */
export function runCommand(args: readonly string[]): void {
  execFileSync(args[0] ?? 'true', args.slice(1), { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000 });
}

export function addNamespaces(names: readonly string[]): void {
  for (const name of names) runCommand(['ip', 'netns', 'add', name]);
}

/** Deletes namespaces (and the links in them); missing ones are fine. */
export function removeNamespaces(names: readonly string[]): void {
  for (const name of names) {
    try { runCommand(['ip', 'netns', 'del', name]); } catch { /* not made or already gone */ }
  }
}

/**
 * The test's namespace joined to a new "presenter" namespace by a veth pair,
 * on a /24 of 10.215.0.0/16 picked at random (tests running side by side get
 * their own), with fixed link-local fe80::1 (ours) and fe80::2 (theirs).
 */
export function createLan(): Lan {
  const tag = randomBytes(3).toString('hex');
  const subnet = `10.215.${randomBytes(1)[0] ?? 0}`;
  const gateway: LanSide = { namespace: undefined, interfaceName: `ltg${tag}`, ipv4: `${subnet}.1`, ipv6LinkLocal: 'fe80::1' };
  const presenter = { namespace: `lt-pc-${tag}`, interfaceName: `ltp${tag}`, ipv4: `${subnet}.2`, ipv6LinkLocal: 'fe80::2' };
  const inPresenter = ['ip', 'netns', 'exec', presenter.namespace];
  const remove = (): void => {
    // Deleting the namespace deletes its veth end, and with it ours.
    removeNamespaces([presenter.namespace]);
    try { runCommand(['ip', 'link', 'del', gateway.interfaceName]); } catch { /* gone with the namespace */ }
  };
  try {
    addNamespaces([presenter.namespace]);
    for (const key of ['default.accept_dad=0', 'all.accept_dad=0', 'default.addr_gen_mode=1']) runCommand([...inPresenter, 'sysctl', '-q', '-w', `net.ipv6.conf.${key}`]);
    runCommand(['ip', 'link', 'add', gateway.interfaceName, 'type', 'veth', 'peer', 'name', presenter.interfaceName, 'netns', presenter.namespace]);
    // No generated link-local address and no DAD on our end either: the fixed one works at once.
    runCommand(['sysctl', '-q', '-w', `net.ipv6.conf.${gateway.interfaceName}.addr_gen_mode=1`, `net.ipv6.conf.${gateway.interfaceName}.accept_dad=0`]);
    for (const side of [gateway, presenter]) {
      const ip = side.namespace ? ['ip', '-n', side.namespace] : ['ip'];
      runCommand([...ip, 'addr', 'add', `${side.ipv4}/24`, 'dev', side.interfaceName]);
      runCommand([...ip, 'addr', 'add', `${side.ipv6LinkLocal}/64`, 'dev', side.interfaceName, 'nodad']);
      runCommand([...ip, 'link', 'set', side.interfaceName, 'up']);
    }
    runCommand(['ip', '-n', presenter.namespace, 'addr', 'add', `${subnet}.3/24`, 'dev', presenter.interfaceName]);
    runCommand(['ip', '-n', presenter.namespace, 'link', 'set', 'lo', 'up']);
    // The presenter has no default route: multicast goes out its one link.
    runCommand(['ip', '-n', presenter.namespace, 'route', 'add', '224.0.0.0/4', 'dev', presenter.interfaceName]);
  } catch (error) {
    remove();
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(`could not build the test LAN: ${stderr ?? (error instanceof Error ? error.message : String(error))}`);
  }
  return { gateway, presenter, neighbourIpv4: `${subnet}.3`, presenterExec: inPresenter, remove };
}
