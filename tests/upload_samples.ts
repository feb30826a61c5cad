/**
 * Minimal real files in generic containers (what `file-type` reports by the container's
 * type): a Chrome WebM audio recording, a Safari `isom` MP4 recording, an empty CFB (legacy
 * Office), a .docx and a plain ZIP.
 * @module
 */
import { concat, enc } from "./upload_fixtures.ts";

const b64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

/** An EBML element: id bytes, then a size (one-byte form, or 8 bytes when larger). */
function ebml(id: number[], ...body: Uint8Array[]): Uint8Array {
  const payload = concat(...body);
  const size = payload.byteLength < 127
    ? [0x80 | payload.byteLength]
    : [0x01, 0, 0, 0, ...u32(payload.byteLength)];
  return concat(new Uint8Array([...id, ...size]), payload);
}

function u32(n: number): number[] {
  return [n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
}

const bytes = (...b: number[]) => new Uint8Array(b);

/**
 * A minimal WebM audio recording as Chrome's MediaRecorder writes one (`audio/webm`):
 * EBML header (DocType webm), a live Segment with Info, one Opus audio track and a cluster
 * holding one silent Opus frame. `file-type` reports it as `video/webm`.
 */
export function webmAudio(): Uint8Array {
  const header = ebml(
    [0x1a, 0x45, 0xdf, 0xa3],
    ebml([0x42, 0x86], bytes(1)),
    ebml([0x42, 0xf7], bytes(1)),
    ebml([0x42, 0xf2], bytes(4)),
    ebml([0x42, 0xf3], bytes(8)),
    ebml([0x42, 0x82], enc("webm")),
    ebml([0x42, 0x87], bytes(4)),
    ebml([0x42, 0x85], bytes(2)),
  );
  const info = ebml(
    [0x15, 0x49, 0xa9, 0x66],
    ebml([0x2a, 0xd7, 0xb1], bytes(0x0f, 0x42, 0x40)),
    ebml([0x4d, 0x80], enc("Chrome")),
    ebml([0x57, 0x41], enc("Chrome")),
  );
  const tracks = ebml(
    [0x16, 0x54, 0xae, 0x6b],
    ebml(
      [0xae],
      ebml([0xd7], bytes(1)),
      ebml([0x73, 0xc5], bytes(1)),
      ebml([0x83], bytes(2)), // TrackType 2: audio
      ebml([0x86], enc("A_OPUS")),
      ebml([0xe1], ebml([0xb5], bytes(0x47, 0x3b, 0x80, 0x00)), ebml([0x9f], bytes(1))),
    ),
  );
  const cluster = ebml(
    [0x1f, 0x43, 0xb6, 0x75],
    ebml([0xe7], bytes(0)),
    ebml([0xa3], bytes(0x81, 0, 0, 0x80, 0xf8, 0xff, 0xfe)),
  );
  // A recording in progress has a Segment of unknown size.
  const segment = concat(
    bytes(0x18, 0x53, 0x80, 0x67, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff),
    info,
    tracks,
    cluster,
  );
  return concat(header, segment);
}

/** An ISO BMFF box. */
function box(type: string, ...body: Uint8Array[]): Uint8Array {
  const payload = concat(...body);
  return concat(bytes(...u32(payload.byteLength + 8)), enc(type), payload);
}

/**
 * A minimal MP4 audio file with the `isom` brand, as Safari records audio (`audio/mp4`):
 * ftyp, a movie header and one sound track, and an empty mdat. `file-type` reports it as
 * `video/mp4`; with `brand` "M4A " it reports `audio/x-m4a`.
 */
export function mp4Audio(brand = "isom"): Uint8Array {
  const matrix = [0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000].flatMap(u32);
  const mvhd = box(
    "mvhd",
    bytes(...u32(0), ...u32(0), ...u32(0), ...u32(1000), ...u32(0), ...u32(0x10000)),
    bytes(0x01, 0x00, ...new Array(10).fill(0), ...matrix, ...new Array(24).fill(0), ...u32(2)),
  );
  const hdlr = box(
    "hdlr",
    bytes(...u32(0), ...u32(0)),
    enc("soun"),
    new Uint8Array(12),
    enc("SoundHandler\0"),
  );
  return concat(
    box("ftyp", enc(brand), bytes(...u32(0x200)), enc("isomiso2mp41")),
    box("moov", mvhd, box("trak", box("mdia", hdlr))),
    box("mdat"),
  );
}

/**
 * An empty Compound File (CFB v3: header, one FAT sector, one directory sector with the
 * Root Entry), the container of legacy .doc/.xls/.ppt; `file-type` reports
 * `application/x-cfb`.
 */
export function cfbBytes(): Uint8Array {
  const out = new Uint8Array(512 * 3);
  const v = new DataView(out.buffer);
  out.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
  v.setUint16(0x18, 0x3e, true); // minor version
  v.setUint16(0x1a, 3, true); // major version 3: 512-byte sectors
  v.setUint16(0x1c, 0xfffe, true); // byte order mark
  v.setUint16(0x1e, 9, true); // sector shift
  v.setUint16(0x20, 6, true); // mini sector shift
  v.setUint32(0x2c, 1, true); // FAT sectors
  v.setUint32(0x30, 1, true); // first directory sector
  v.setUint32(0x38, 0x1000, true); // mini stream cutoff
  v.setUint32(0x3c, 0xfffffffe, true); // no mini FAT
  v.setUint32(0x44, 0xfffffffe, true); // no DIFAT sectors
  for (let i = 0; i < 109; i++) v.setUint32(0x4c + 4 * i, i === 0 ? 0 : 0xffffffff, true);
  for (let i = 0; i < 128; i++) {
    v.setUint32(512 + 4 * i, i === 0 ? 0xfffffffd : i === 1 ? 0xfffffffe : 0xffffffff, true);
  }
  const dir = 1024;
  for (let e = 0; e < 4; e++) {
    for (const off of [0x44, 0x48, 0x4c]) v.setUint32(dir + 128 * e + off, 0xffffffff, true);
  }
  [..."Root Entry"].forEach((c, i) => v.setUint16(dir + 2 * i, c.charCodeAt(0), true));
  v.setUint16(dir + 0x40, 22, true);
  out[dir + 0x42] = 5; // root storage
  out[dir + 0x43] = 1; // black
  v.setUint32(dir + 0x74, 0xfffffffe, true);
  return out;
}

/** A minimal real .docx (deflated [Content_Types].xml, _rels/.rels, word/document.xml). */
export const DOCX = b64(
  "UEsDBBQAAAAIAAAAIVx5bjPX6AAAAK0BAAATAAAAW0NvbnRlbnRfVHlwZXNdLnhtbH1QyU7DMBD9FWuuKHHggBCK" +
    "0wPLETiUDxjZk8SqN3nc0v49Tlt6QIXjzFv1+tXeO7GjzDYGBbdtB4KCjsaGScHn+rV5AMEFg0EXAyk4EMNq6NeH" +
    "RCyqNrCCuZT0KCXrmTxyGxOFiowxeyz1zJNMqDc4kbzrunupYygUSlMWDxj6Zxpx64p42df3qUcmxyCeTsQlSwGm" +
    "5KzGUnG5C+ZXSnNOaKvyyOHZJr6pBJBXExbk74Cz7r0Ok60h8YG5vKGvLPkVs5Em6q2vyvZ/mys94zhaTRf94pZy" +
    "1MRcF/euvSAebfjpL49zD99QSwMEFAAAAAgAAAAhXJv9N+qtAAAAKQEAAAsAAABfcmVscy8ucmVsc43POw7CMAwG" +
    "4KtE3mlaBoRQ0y4IqSsqB7ASN61oHkrCo7cnAwNFDIy2f3+W6/ZpZnanECdnBVRFCYysdGqyWsClP232wGJCq3B2" +
    "lgQsFKFt6jPNmPJKHCcfWTZsFDCm5A+cRzmSwVg4TzZPBhcMplwGzT3KK2ri27Lc8fBpwNpknRIQOlUB6xdP/9hu" +
    "GCZJRydvhmz6ceIrkWUMmpKAhwuKq3e7yCzwpuarF5sXUEsDBBQAAAAIAAAAIVxBIf0xmAAAAMsAAAARAAAAd29y" +
    "ZC9kb2N1bWVudC54bWxFjkEOwiAQRa9CZm+pLoxpSt0ZD6AHQBhbkjJDAK29vVAXbt7Pz0xefn/++Fm8MSbHpGDf" +
    "tCCQDFtHo4L77bI7gUhZk9UzEypYMcF56JfOsnl5pCyKgFK3KJhyDp2UyUzodWo4IJXbk6PXudQ4yoWjDZENplT8" +
    "fpaHtj1Krx1BVT7YrjVDRazIw9X1smZl3Bg2/n7lf8fwBVBLAQIUAxQAAAAIAAAAIVx5bjPX6AAAAK0BAAATAAAA" +
    "AAAAAAAAAACAAQAAAABbQ29udGVudF9UeXBlc10ueG1sUEsBAhQDFAAAAAgAAAAhXJv9N+qtAAAAKQEAAAsAAAAA" +
    "AAAAAAAAAIABGQEAAF9yZWxzLy5yZWxzUEsBAhQDFAAAAAgAAAAhXEEh/TGYAAAAywAAABEAAAAAAAAAAAAAAIAB" +
    "7wEAAHdvcmQvZG9jdW1lbnQueG1sUEsFBgAAAAADAAMAuQAAALYCAAAAAA==",
);

/** A plain ZIP with one text entry: what `file-type` reports as `application/zip`. */
export const PLAIN_ZIP = b64(
  "UEsDBBQAAAAIAAAAIVxQ5yBKEgAAABAAAAAJAAAAbm90ZXMudHh0K8hJzMxTqMosUEjNKymq5AIAUEsBAhQDFAAA" +
    "AAgAAAAhXFDnIEoSAAAAEAAAAAkAAAAAAAAAAAAAAIABAAAAAG5vdGVzLnR4dFBLBQYAAAAAAQABADcAAAA5AAAA" +
    "AAA=",
);
