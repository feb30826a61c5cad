/**
 * Spanish validation messages and hosted page texts.
 * @module
 */
import type { Catalogue } from "../messages_en.ts";

/** The Spanish catalogue. */
export const ES: Catalogue = {
  messages: {
    required: "{{label}} es obligatorio.",
    tick: "Marque «{{label}}».",
    unknown_field: "Campo desconocido '{{name}}'.",
    file_ref: "{{label}} debe ser una referencia de archivo {path, ...}.",
    file_kind: "{{label}} no acepta este tipo de archivo.",
    file_size: "{{label}} acepta archivos de hasta {{max}}.",
    file_empty: "{{label}}: el archivo está vacío.",
    number: "{{label}} debe ser un número.",
    integer: "{{label}} debe ser un número entero.",
    number_min: "{{label}} debe ser como mínimo {{min}}.",
    number_max: "{{label}} debe ser como máximo {{max}}.",
    boolean: "{{label}} debe ser verdadero o falso.",
    string: "{{label}} debe ser un texto.",
    option: "{{label}} debe ser una de las opciones ofrecidas.",
    list: "{{label}} debe ser una lista de textos.",
    list_twice: "{{label}} repite una opción.",
    list_options: "{{label}} solo puede contener las opciones ofrecidas.",
    list_min: "{{label}}: elija al menos {{min}}.",
    list_max: "{{label}}: como máximo {{max}} opciones.",
    length_min: "{{label}} debe tener al menos {{min}} caracteres.",
    length_max: "{{label}} debe tener como máximo {{max}} caracteres.",
    pattern: "{{label}} no tiene el formato esperado.",
    date_min: "{{label}} debe ser el {{min}} o posterior.",
    date_max: "{{label}} debe ser el {{max}} o anterior.",
    email: "{{label}} debe ser una dirección de correo válida.",
    url: "{{label}} debe ser una URL válida.",
    url_scheme: "{{label}} debe ser una URL http(s).",
    tel: "{{label}} debe ser un número de teléfono.",
    date: "{{label}} debe ser una fecha (AAAA-MM-DD).",
    datetime: "{{label}} debe ser una fecha y hora (ISO 8601).",
    summary: "El envío tiene campos no válidos.",
  },
  ui: {
    submit: "Enviar",
    next: "Siguiente",
    back: "Atrás",
    step: "Paso {{n}} de {{total}}",
    sending: "Enviando…",
    sending_status: "Enviando su respuesta…",
    success: "¡Gracias! Hemos recibido su respuesta.",
    fix: "Corrija los campos marcados a continuación.",
    optional: "opcional",
  },
};
