// DPWS (2006/02) device metadata, the answer to a WS-Transfer Get on a
// device's XAddr: ThisModel, ThisDevice, the Relationship naming the device
// (host) and its hosted projector service, and our own Display section (room,
// live state). What wsdd and Windows read; what the presenter CLI lists.
import { childNamed, childrenNamed, type XmlElement } from '../xml/hardenedXml.js';
import { childText, escapeXml, readQNames, WsdMessageError, writeQNames } from './soapEnvelope.js';
import { DIALECT, NS, RELATIONSHIP_HOST, type QName } from './wsdConstants.js';

export type DisplayState = 'offline' | 'idle' | 'presenting';

export interface HostedService {
  readonly address: string;
  readonly types: readonly QName[];
  readonly serviceId: string;
}

export interface DeviceMetadata {
  readonly model: { readonly manufacturer: string; readonly modelName: string; readonly modelNumber?: string | undefined; readonly presentationUrl?: string | undefined };
  readonly device: { readonly friendlyName: string; readonly firmwareVersion?: string | undefined; readonly serialNumber?: string | undefined };
  readonly host: { readonly endpoint: string; readonly types: readonly QName[] };
  readonly hosted: readonly HostedService[];
  /** Lanterna's own section; other devices have none. */
  readonly display?: { readonly id: string; readonly location?: string | undefined; readonly state: DisplayState } | undefined;
}

function element(prefix: string, local: string, value: string | undefined): string {
  return value === undefined ? '' : `<${prefix}:${local}>${escapeXml(value)}</${prefix}:${local}>`;
}

function types(prefix: string, names: readonly QName[]): string {
  const { text, declarations } = writeQNames(names);
  return `<${prefix}:Types${declarations}>${text}</${prefix}:Types>`;
}

function section(dialect: string, content: string): string {
  return `<wsx:MetadataSection Dialect="${escapeXml(dialect)}">${content}</wsx:MetadataSection>`;
}

function reference(address: string): string {
  return `<wsa:EndpointReference><wsa:Address>${escapeXml(address)}</wsa:Address></wsa:EndpointReference>`;
}

export function writeDeviceMetadata(metadata: DeviceMetadata): string {
  const { model, device, host, hosted, display } = metadata;
  return '<wsx:Metadata>'
    + section(DIALECT.thisModel, `<wsdp:ThisModel>${element('wsdp', 'Manufacturer', model.manufacturer)}${element('wsdp', 'ModelName', model.modelName)}`
      + `${element('wsdp', 'ModelNumber', model.modelNumber)}${element('wsdp', 'PresentationUrl', model.presentationUrl)}</wsdp:ThisModel>`)
    + section(DIALECT.thisDevice, `<wsdp:ThisDevice>${element('wsdp', 'FriendlyName', device.friendlyName)}${element('wsdp', 'FirmwareVersion', device.firmwareVersion)}`
      + `${element('wsdp', 'SerialNumber', device.serialNumber)}</wsdp:ThisDevice>`)
    + section(DIALECT.relationship, `<wsdp:Relationship Type="${RELATIONSHIP_HOST}"><wsdp:Host>${reference(host.endpoint)}${types('wsdp', host.types)}</wsdp:Host>`
      + hosted.map((service) => `<wsdp:Hosted>${reference(service.address)}${types('wsdp', service.types)}${element('wsdp', 'ServiceId', service.serviceId)}</wsdp:Hosted>`).join('')
      + '</wsdp:Relationship>')
    + (display ? section(DIALECT.display, `<lp:Display>${element('lp', 'Id', display.id)}${element('lp', 'Location', display.location)}${element('lp', 'State', display.state)}</lp:Display>`) : '')
    + '</wsx:Metadata>';
}

function required(parent: XmlElement | undefined, uri: string, local: string, where: string): string {
  const value = parent ? childText(parent, uri, local) : undefined;
  if (value === undefined) throw new WsdMessageError('bad-body', `metadata has no ${where}/${local}`);
  return value;
}

function referenceAddress(parent: XmlElement): string {
  const ref = childNamed(parent, NS.wsa, 'EndpointReference');
  return required(ref, NS.wsa, 'Address', `${parent.local}/EndpointReference`);
}

export function readDeviceMetadata(body: XmlElement): DeviceMetadata {
  if (body.uri !== NS.wsx || body.local !== 'Metadata') throw new WsdMessageError('bad-body', 'a GetResponse body is a wsx:Metadata');
  const sections = new Map<string, XmlElement>();
  for (const candidate of childrenNamed(body, NS.wsx, 'MetadataSection')) {
    const dialect = candidate.attributes.get('Dialect');
    if (dialect && !sections.has(dialect) && candidate.children[0]) sections.set(dialect, candidate.children[0]);
  }
  const model = sections.get(DIALECT.thisModel);
  const device = sections.get(DIALECT.thisDevice);
  const relationship = sections.get(DIALECT.relationship);
  const host = relationship ? childNamed(relationship, NS.wsdp, 'Host') : undefined;
  if (!host) throw new WsdMessageError('bad-body', 'metadata has no Relationship/Host');
  const hostTypes = childNamed(host, NS.wsdp, 'Types');
  const display = sections.get(DIALECT.display);
  const state = display ? childText(display, NS.lp, 'State') : undefined;
  return {
    model: {
      manufacturer: required(model, NS.wsdp, 'Manufacturer', 'ThisModel'),
      modelName: required(model, NS.wsdp, 'ModelName', 'ThisModel'),
      modelNumber: model ? childText(model, NS.wsdp, 'ModelNumber') : undefined,
      presentationUrl: model ? childText(model, NS.wsdp, 'PresentationUrl') : undefined,
    },
    device: {
      friendlyName: required(device, NS.wsdp, 'FriendlyName', 'ThisDevice'),
      firmwareVersion: device ? childText(device, NS.wsdp, 'FirmwareVersion') : undefined,
      serialNumber: device ? childText(device, NS.wsdp, 'SerialNumber') : undefined,
    },
    host: { endpoint: referenceAddress(host), types: hostTypes ? readQNames(hostTypes) : [] },
    hosted: (relationship ? childrenNamed(relationship, NS.wsdp, 'Hosted') : []).map((hosted) => {
      const hostedTypes = childNamed(hosted, NS.wsdp, 'Types');
      return { address: referenceAddress(hosted), types: hostedTypes ? readQNames(hostedTypes) : [], serviceId: required(hosted, NS.wsdp, 'ServiceId', 'Hosted') };
    }),
    display: display ? {
      id: required(display, NS.lp, 'Id', 'Display'),
      location: childText(display, NS.lp, 'Location'),
      state: state === 'presenting' || state === 'offline' ? state : 'idle',
    } : undefined,
  };
}
