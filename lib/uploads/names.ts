/**
 * Download names: a stored file is offered under the name its sender gave, with the
 * extension of its verified type, so a file kept as `image/png` is never saved as
 * `invoice.html` (or `.svg`, `.hta`) on the admin's disk, where the extension decides how
 * it opens. See docs/decisions/upload-download-names.md.
 * @module
 */

/** The extensions of each type Formwell may verify a file as; the first is the one added. */
const EXTENSIONS: Record<string, string[]> = {
  "image/jpeg": ["jpg", "jpeg", "jpe", "jfif"],
  "image/png": ["png"],
  "image/apng": ["apng", "png"],
  "image/gif": ["gif"],
  "image/webp": ["webp"],
  "image/avif": ["avif"],
  "image/heic": ["heic"],
  "image/heif": ["heif"],
  "image/jxl": ["jxl"],
  "image/bmp": ["bmp"],
  "image/tiff": ["tif", "tiff"],
  "image/x-icon": ["ico"],
  "image/vnd.microsoft.icon": ["ico"],
  "image/vnd.adobe.photoshop": ["psd"],
  "application/pdf": ["pdf"],
  "application/zip": ["zip"],
  "application/gzip": ["gz"],
  "application/x-tar": ["tar"],
  "application/x-7z-compressed": ["7z"],
  "application/x-rar-compressed": ["rar"],
  "application/vnd.rar": ["rar"],
  "application/x-bzip2": ["bz2"],
  "application/x-xz": ["xz"],
  "application/rtf": ["rtf"],
  "application/msword": ["doc"],
  "application/vnd.ms-excel": ["xls"],
  "application/vnd.ms-powerpoint": ["ppt"],
  "application/x-cfb": ["cfb"],
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ["docx"],
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": ["xlsx"],
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": ["pptx"],
  "application/vnd.oasis.opendocument.text": ["odt"],
  "application/vnd.oasis.opendocument.spreadsheet": ["ods"],
  "application/vnd.oasis.opendocument.presentation": ["odp"],
  "application/epub+zip": ["epub"],
  "application/ogg": ["ogx", "ogg"],
  "application/x-msdownload": ["exe"],
  "application/vnd.microsoft.portable-executable": ["exe", "dll"],
  "application/java-archive": ["jar"],
  "text/plain": ["txt", "text", "log"],
  "text/csv": ["csv"],
  "text/tab-separated-values": ["tsv", "tab"],
  "text/markdown": ["md", "markdown"],
  "text/calendar": ["ics"],
  "text/vcard": ["vcf", "vcard"],
  "application/json": ["json"],
  "audio/mpeg": ["mp3"],
  "audio/wav": ["wav"],
  "audio/ogg": ["ogg", "oga", "opus"],
  "audio/opus": ["opus"],
  "audio/webm": ["weba", "webm"],
  "audio/mp4": ["m4a", "mp4"],
  "audio/x-m4a": ["m4a"],
  "audio/aac": ["aac"],
  "audio/flac": ["flac"],
  "audio/x-flac": ["flac"],
  "audio/aiff": ["aif", "aiff"],
  "audio/x-aiff": ["aif", "aiff"],
  "audio/3gpp": ["3gp"],
  "audio/3gpp2": ["3g2"],
  "audio/x-matroska": ["mka"],
  "audio/midi": ["mid", "midi"],
  "video/mp4": ["mp4", "m4v"],
  "video/webm": ["webm"],
  "video/quicktime": ["mov", "qt"],
  "video/x-msvideo": ["avi"],
  "video/vnd.avi": ["avi"],
  "video/matroska": ["mkv"],
  "video/x-matroska": ["mkv"],
  "video/ogg": ["ogv"],
  "video/mpeg": ["mpg", "mpeg"],
  "video/mp2t": ["ts", "m2ts"],
  "video/3gpp": ["3gp"],
  "video/3gpp2": ["3g2"],
  "video/x-flv": ["flv"],
};

/** An extension: up to 8 letters or digits after the last dot. */
const EXTENSION = /\.([A-Za-z0-9]{1,8})$/;

/**
 * The name to download a file of the verified type `mimeType` under: `name` itself when its
 * extension is one of the type's, else `name` with its extension replaced by (or, without
 * one, added) the type's own; `.bin` for a type not listed above.
 */
export function downloadName(name: string, mimeType: string): string {
  const exts = EXTENSIONS[mimeType.toLowerCase()] ?? ["bin"];
  const ext = EXTENSION.exec(name);
  if (ext && exts.includes(ext[1].toLowerCase())) return name;
  const base = (ext ? name.slice(0, ext.index) : name).replace(/[.\s]+$/, "") || "file";
  return `${base}.${exts[0]}`;
}
