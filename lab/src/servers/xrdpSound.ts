// Sound inside an xrdp session (issue 27): a tone that a real sound server
// plays into xrdp's audio channel, so the display's rdpsnd client can be
// tested against a real RDP server. xrdp 0.9.21's chansrv sends rdpsnd to the
// client and takes PCM from the session's sound server over a Unix socket
// ($XRDP_SOCKET_PATH/$XRDP_PULSE_SINK_SOCKET); Debian 12 has no PulseAudio
// module for it, bookworm-backports has PipeWire's (pipewire-module-xrdp).
//
// The session has no systemd, no D-Bus and no session manager, so the session
// script starts a bare PipeWire daemon with the lab's own configuration (this
// file) and links the player to the xrdp sink by hand. Two things are needed
// that a desktop gets from WirePlumber: module-access (without it every client
// waits forever for its permissions: pw-cli and pw-link hang) and
// `adapter.auto-port-config` on both streams (without it a stream's node has
// no ports to link until a session manager configures them).

/** One channel of the tone: a sine at `hz`, peak `amplitude` (0–1 of full scale). */
export interface ToneChannel {
  readonly hz: number;
  readonly amplitude: number;
}

export interface XrdpSoundOptions {
  readonly left: ToneChannel;
  readonly right: ToneChannel;
  /** Length of the wave the player loops (a short break at each loop). Default 30 s. */
  readonly seconds?: number;
}

/** xrdp's chansrv and the module run at 44.1 kHz (the module's own script sets the graph to it). */
export const XRDP_SOUND_RATE = 44_100;
const MAX_SECONDS = 120;

/** 16-bit stereo PCM in a RIFF/WAVE file, for pw-play. */
export function toneWave(options: XrdpSoundOptions, rate = XRDP_SOUND_RATE): Buffer {
  const seconds = options.seconds ?? 30;
  if (!(seconds > 0 && seconds <= MAX_SECONDS)) throw new RangeError(`tone length must be within (0, ${MAX_SECONDS}] s: ${seconds}`);
  for (const side of [options.left, options.right]) {
    if (!(side.amplitude >= 0 && side.amplitude <= 1)) throw new RangeError(`tone amplitude must be within [0, 1]: ${side.amplitude}`);
    if (!(side.hz > 0 && side.hz < rate / 2)) throw new RangeError(`tone frequency must be within (0, ${rate / 2}) Hz: ${side.hz}`);
  }
  const frames = Math.round(seconds * rate);
  const data = Buffer.alloc(frames * 4);
  for (let i = 0; i < frames; i++) {
    data.writeInt16LE(Math.round(32767 * options.left.amplitude * Math.sin((2 * Math.PI * options.left.hz * i) / rate)), i * 4);
    data.writeInt16LE(Math.round(32767 * options.right.amplitude * Math.sin((2 * Math.PI * options.right.hz * i) / rate)), i * 4 + 2);
  }
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(2, 22); // channels
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 4, 28); // bytes per second
  header.writeUInt16LE(4, 32); // block align
  header.writeUInt16LE(16, 34); // bits per sample
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** What a session manager would give a stream: ports to link by hand (the clapperboard's stream needs the same). */
export const AUTO_PORTS = 'adapter.auto-port-config = { mode = dsp monitor = false position = preserve }';

/**
 * A bare PipeWire daemon: the native protocol, access (grants clients their
 * permissions), the adapters, links, a timer driver to clock the graph, and the
 * xrdp module (its sink writes to chansrv's socket, found from the session's
 * XRDP_SOCKET_PATH and XRDP_PULSE_SINK_SOCKET). No D-Bus, no realtime module.
 */
export function pipewireConfig(): string {
  return `# lanterna lab: PipeWire for an xrdp session (generated)
context.properties = {
  core.daemon = true
  core.name = pipewire-0
  default.clock.rate = ${XRDP_SOUND_RATE}
  default.clock.allowed-rates = [ ${XRDP_SOUND_RATE} ]
  default.clock.quantum = 1024
  support.dbus = false
}
context.spa-libs = {
  audio.convert.* = audioconvert/libspa-audioconvert
  support.*       = support/libspa-support
}
context.modules = [
  { name = libpipewire-module-protocol-native }
  { name = libpipewire-module-access }
  { name = libpipewire-module-metadata }
  { name = libpipewire-module-spa-node-factory }
  { name = libpipewire-module-client-node }
  { name = libpipewire-module-adapter }
  { name = libpipewire-module-link-factory }
  { name = libpipewire-module-xrdp args = { sink.node.latency = 1024 sink.stream.props = { node.name = xrdp-sink ${AUTO_PORTS} } } }
]
context.objects = [
  { factory = spa-node-factory args = { factory.name = support.node.driver node.name = Dummy-Driver node.group = pipewire.dummy priority.driver = 20000 } }
]
`;
}

/** Single-quotes a path for /bin/sh. */
function quote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The session's runtime directory: PipeWire's socket lives there, and every program of the session finds it through XDG_RUNTIME_DIR. */
const RUNTIME_DIR_LINES = ['export XDG_RUNTIME_DIR="$HOME/.lanterna-runtime"', 'mkdir -p -m 700 "$XDG_RUNTIME_DIR"'];

const say = (words: string): string => `echo "lanterna sound: ${words}"`;

/**
 * Shell lines for the session script when the scene plays its own sound (the
 * clapperboard): the runtime directory exported to the whole session, then
 * PipeWire in the background, its output appended to `logPath`. The scene's
 * program waits for PipeWire's socket and links its own stream to xrdp-sink.
 */
export function pipewireSessionLines(files: { config: string; logPath: string }): string[] {
  return [...RUNTIME_DIR_LINES, `PIPEWIRE_DEBUG=2 pipewire -c ${quote(files.config)} >>${quote(files.logPath)} 2>&1 &`];
}

/**
 * Shell lines for the session script (run as the session's user, before the
 * scene): PipeWire in the background, then a loop that plays the wave and
 * links the player's two ports to the xrdp sink's, each wait with a deadline.
 * Everything they print goes to `logPath` ("lanterna sound: …" lines say
 * which step was reached).
 */
export function soundSessionLines(files: { config: string; wave: string; logPath: string }): string[] {
  const body = [
    ...RUNTIME_DIR_LINES,
    `PIPEWIRE_DEBUG=2 pipewire -c ${quote(files.config)} &`,
    'i=0',
    `until timeout 2 pw-cli info 0 >/dev/null 2>&1; do i=$((i+1)); if [ $i -gt 50 ]; then ${say('pipewire did not answer in 10 s')}; exit 1; fi; sleep 0.2; done`,
    say('pipewire answers'),
    'while :; do',
    `  pw-play --latency=1024 -P '{ node.autoconnect = false node.name = lanterna-tone ${AUTO_PORTS} }' ${quote(files.wave)} &`,
    '  player=$!',
    '  i=0',
    // a link made on an earlier try stays: both are tried each time, then counted
    '  until [ "$(timeout 2 pw-link -l 2>/dev/null | grep -c \'|<- lanterna-tone:output_F[LR]\')" = 2 ]; do',
    `    i=$((i+1)); if [ $i -gt 50 ]; then ${say('could not link the player to xrdp-sink in 10 s')}; timeout 2 pw-link -io; kill $player; exit 1; fi`,
    '    timeout 2 pw-link lanterna-tone:output_FL xrdp-sink:send_FL 2>/dev/null; timeout 2 pw-link lanterna-tone:output_FR xrdp-sink:send_FR 2>/dev/null; sleep 0.2',
    '  done',
    `  ${say('the tone plays into xrdp-sink')}`,
    '  wait $player',
    'done',
  ];
  return ['(', ...body.map((line) => `  ${line}`), `) >>${quote(files.logPath)} 2>&1 &`];
}
