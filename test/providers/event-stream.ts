import { crc32 } from 'node:zlib';

/**
 * One message of AWS's `application/vnd.amazon.eventstream` framing, as Bedrock's ConverseStream
 * sends it: prelude (total length, headers length, CRC32 of both), string headers, the JSON
 * payload, and a CRC32 of everything before it. The AI SDK decodes it with `@smithy/eventstream-codec`,
 * which checks both checksums, so a wrong frame fails the test.
 */
export function eventStreamMessage(headers: Readonly<Record<string, string>>, payload: string): Buffer {
  const headerBytes = Buffer.concat(
    Object.entries(headers).map(([name, value]) => {
      const nameBytes = Buffer.from(name, 'utf8');
      const valueBytes = Buffer.from(value, 'utf8');
      const head = Buffer.alloc(1 + nameBytes.length + 1 + 2);
      head.writeUInt8(nameBytes.length, 0);
      nameBytes.copy(head, 1);
      head.writeUInt8(7, 1 + nameBytes.length); // header value type 7: string
      head.writeUInt16BE(valueBytes.length, 2 + nameBytes.length);
      return Buffer.concat([head, valueBytes]);
    }),
  );
  const body = Buffer.from(payload, 'utf8');
  const total = 12 + headerBytes.length + body.length + 4;
  const prelude = Buffer.alloc(12);
  prelude.writeUInt32BE(total, 0);
  prelude.writeUInt32BE(headerBytes.length, 4);
  prelude.writeUInt32BE(crc32(prelude.subarray(0, 8)), 8);
  const message = Buffer.concat([prelude, headerBytes, body]);
  const trailer = Buffer.alloc(4);
  trailer.writeUInt32BE(crc32(message), 0);
  return Buffer.concat([message, trailer]);
}

/** A Converse stream event (`{"contentBlockDelta": {...}}`, the recordings' line format) as a frame. */
export function bedrockEvent(event: Readonly<Record<string, unknown>>): Buffer {
  const [type, payload] = Object.entries(event)[0]!;
  return eventStreamMessage(
    { ':event-type': type, ':content-type': 'application/json', ':message-type': 'event' },
    JSON.stringify(payload),
  );
}
