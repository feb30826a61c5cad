/**
 * Arabic validation messages and hosted page texts (written right to left; the page sets
 * `dir="rtl"`).
 * @module
 */
import type { Catalogue } from "../messages_en.ts";

/** The Arabic catalogue. */
export const AR: Catalogue = {
  messages: {
    required: "الحقل «{{label}}» مطلوب.",
    tick: "يرجى تحديد «{{label}}».",
    unknown_field: "حقل غير معروف '{{name}}'.",
    file_ref: "يجب أن يكون «{{label}}» مرجع ملف {path, ...}.",
    file_kind: "لا يقبل «{{label}}» هذا النوع من الملفات.",
    file_size: "يقبل «{{label}}» ملفات حتى {{max}}.",
    file_empty: "«{{label}}»: الملف فارغ.",
    number: "يجب أن يكون «{{label}}» رقمًا.",
    integer: "يجب أن يكون «{{label}}» عددًا صحيحًا.",
    number_min: "يجب ألا يقل «{{label}}» عن {{min}}.",
    number_max: "يجب ألا يزيد «{{label}}» على {{max}}.",
    boolean: "يجب أن تكون قيمة «{{label}}» صحيحًا أو خطأً.",
    string: "يجب أن يكون «{{label}}» نصًا.",
    option: "يجب أن يكون «{{label}}» أحد الخيارات المعروضة.",
    list: "يجب أن يكون «{{label}}» قائمة نصوص.",
    list_twice: "يتضمن «{{label}}» خيارًا مكررًا.",
    list_options: "يجب ألا يتضمن «{{label}}» إلا الخيارات المعروضة.",
    list_min: "«{{label}}»: اختر {{min}} على الأقل.",
    list_max: "«{{label}}»: الحد الأقصى للاختيارات {{max}}.",
    length_min: "يجب ألا يقل طول «{{label}}» عن {{min}} حرف.",
    length_max: "يجب ألا يزيد طول «{{label}}» على {{max}} حرف.",
    pattern: "«{{label}}» ليس بالتنسيق المتوقع.",
    date_min: "يجب أن يكون «{{label}}» في {{min}} أو بعده.",
    date_max: "يجب أن يكون «{{label}}» في {{max}} أو قبله.",
    email: "يجب أن يكون «{{label}}» عنوان بريد إلكتروني صالحًا.",
    url: "يجب أن يكون «{{label}}» عنوان URL صالحًا.",
    url_scheme: "يجب أن يكون «{{label}}» عنوان URL يبدأ بـ http(s).",
    tel: "يجب أن يكون «{{label}}» رقم هاتف.",
    date: "يجب أن يكون «{{label}}» تاريخًا (YYYY-MM-DD).",
    datetime: "يجب أن يكون «{{label}}» تاريخًا ووقتًا (ISO 8601).",
    summary: "يحتوي الإرسال على حقول غير صالحة.",
  },
  ui: {
    submit: "إرسال",
    next: "التالي",
    back: "السابق",
    step: "الخطوة {{n}} من {{total}}",
    sending: "جارٍ الإرسال…",
    sending_status: "جارٍ إرسال ردك…",
    success: "شكرًا لك! تم استلام ردك.",
    fix: "يرجى تصحيح الحقول المشار إليها أدناه.",
    optional: "اختياري",
  },
};
