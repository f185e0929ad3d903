// Finding displays: a WS-Discovery Probe for Lanterna displays on every
// interface (IPv4 group, and IPv6 ff02::c on link-local addresses), the
// ProbeMatches collected until the timeout, then each display's DPWS metadata
// (name, room, state, its projector service) fetched with WS-Transfer Get.
import { createSocket, type Socket } from 'node:dgram';
import { randomUUID } from 'node:crypto';
import { networkInterfaces } from 'node:os';
import {
  ANONYMOUS, DISCOVERY_URN, DISPLAY_TYPE, PROJECTOR_TYPE, readWsdMessage, utf8Bytes, WSD_IPV4_GROUP, WSD_IPV6_GROUP, WSD_PORT, writeWsdMessage,
  type DisplayState,
} from '@lanterna/protocol/wsd';
import { postSoap, type SoapTarget } from './soapClient.js';
import { PresenterError } from './presenterError.js';

export interface FoundDisplay {
  readonly endpoint: string;
  readonly id: string;
  readonly name: string;
  readonly location?: string | undefined;
  readonly state: DisplayState;
  /** The device's XAddr the metadata came from. */
  readonly address: string;
  /** The hosted projector service (Connect, Disconnect). */
  readonly projector: SoapTarget;
}

interface Match { endpoint: string; xaddr: string; zone?: string | undefined }

interface LocalLink { family: 4 | 6; address: string; interfaceName: string }

function localLinks(only: string | undefined): LocalLink[] {
  const links: LocalLink[] = [];
  for (const [interfaceName, infos] of Object.entries(networkInterfaces())) {
    if (only ? interfaceName !== only : (infos ?? []).some((info) => info.internal)) continue;
    for (const info of infos ?? []) {
      if (info.family === 'IPv4') links.push({ family: 4, address: info.address, interfaceName });
      else if (info.address.toLowerCase().startsWith('fe80:')) links.push({ family: 6, address: info.address, interfaceName });
    }
  }
  return links;
}

async function probeOn(link: LocalLink, timeoutMs: number, matches: Map<string, Match>): Promise<void> {
  const socket: Socket = createSocket(link.family === 6 ? 'udp6' : 'udp4');
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(0, link.family === 6 ? `${link.address}%${link.interfaceName}` : link.address, () => resolve());
    });
    socket.setMulticastInterface(link.family === 6 ? `::%${link.interfaceName}` : link.address);
    socket.setMulticastTTL(1);
    const messageId = `urn:uuid:${randomUUID()}`;
    socket.on('message', (bytes) => {
      const read = readWsdMessage(bytes);
      if (!read.ok || read.message.kind !== 'probe-matches' || read.message.header.relatesTo !== messageId) return;
      for (const match of read.message.matches) {
        const xaddr = match.xaddrs.find((address) => address.startsWith('http://') || address.startsWith('https://'));
        // IPv4 first: the XAddr needs no zone to be reached.
        if (xaddr && (!matches.has(match.endpoint) || link.family === 4)) matches.set(match.endpoint, { endpoint: match.endpoint, xaddr, zone: link.family === 6 ? link.interfaceName : undefined });
      }
    });
    const probe = utf8Bytes(writeWsdMessage({ kind: 'probe', header: { messageId, to: DISCOVERY_URN, replyTo: ANONYMOUS }, probe: { types: [DISPLAY_TYPE], scopes: [] } }));
    const group = link.family === 6 ? `${WSD_IPV6_GROUP}%${link.interfaceName}` : WSD_IPV4_GROUP;
    // SOAP-over-UDP: the Probe goes twice, in case the first is lost.
    for (const delay of [0, 100]) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      await new Promise<void>((resolve) => socket.send(probe, WSD_PORT, group, () => resolve()));
    }
    await new Promise((resolve) => setTimeout(resolve, timeoutMs));
  } catch {
    // An interface that cannot send multicast (down, no route) simply finds nothing.
  } finally {
    socket.close();
  }
}

/** Every Lanterna display that answers on this computer's networks (or one interface). */
export async function findDisplays(options: { timeoutMs: number; interfaceName?: string | undefined; stateDir: string }): Promise<FoundDisplay[]> {
  const matches = new Map<string, Match>();
  await Promise.all(localLinks(options.interfaceName).map((link) => probeOn(link, options.timeoutMs, matches)));
  const found = await Promise.all([...matches.values()].map(async (match): Promise<FoundDisplay | undefined> => {
    const url = new URL(match.xaddr);
    try {
      const answer = await postSoap({ url, zone: match.zone }, { kind: 'get', header: { messageId: `urn:uuid:${randomUUID()}`, to: match.endpoint, replyTo: ANONYMOUS } }, options.stateDir);
      if (answer.kind !== 'get-response') return undefined;
      const { metadata } = answer;
      const projector = metadata.hosted.find((service) => service.types.some((type) => type.namespace === PROJECTOR_TYPE.namespace && type.local === PROJECTOR_TYPE.local));
      if (!projector) return undefined;
      return {
        endpoint: match.endpoint, id: metadata.display?.id ?? metadata.device.serialNumber ?? match.endpoint,
        name: metadata.device.friendlyName, location: metadata.display?.location, state: metadata.display?.state ?? 'idle',
        address: match.xaddr, projector: { url: new URL(projector.address), zone: match.zone },
      };
    } catch (error) {
      // A changed certificate must be heard; a device that does not answer its Get is simply not listed.
      if (error instanceof PresenterError && error.code === 'certificate-changed') throw error;
      return undefined;
    }
  }));
  return found.filter((display): display is FoundDisplay => display !== undefined).sort((a, b) => a.name.localeCompare(b.name));
}
