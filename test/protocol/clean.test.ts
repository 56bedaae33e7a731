import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { cleanLine, cleanText, cutText, indent } from "../../src/protocol/index.js";

describe("cleanText", () => {
  test("a CRLF becomes one newline and a tab a space", () => {
    assert.equal(cleanText("a\r\nb\tc\n"), "a\nb c\n");
  });

  test("a lone carriage return becomes ? so it cannot rewrite the line", () => {
    assert.equal(cleanText("safe\rEVIL"), "safe?EVIL");
  });

  test("an escape sequence loses its ESC and cannot recolour or move the cursor", () => {
    assert.equal(cleanText("\x1b[31mred\x1b[0m \x1b]0;title\x07"), "?[31mred?[0m ?]0;title?");
  });

  test("C1 controls, DEL and NUL become ?", () => {
    assert.equal(cleanText("a\x85b\x9bc\x7fd\0e"), "a?b?c?d?e");
  });

  test("C1 controls sent as raw bytes become ? too", () => {
    assert.equal(cleanText(Buffer.from([0x61, 0xc2, 0x9b, 0x62])), "a?b");
  });

  test("a bidi override cannot reorder the text", () => {
    assert.equal(cleanText("abc\u202Egnp.exe"), "abc?gnp.exe");
    assert.equal(cleanText("\u2066x\u2069"), "?x?");
  });

  test("zero-width and other format characters become ?", () => {
    assert.equal(cleanText("a\u200Bb\u200Dc\uFEFFd\u00ADe\u{E0041}f"), "a?b?c?d?e?f");
  });

  test("the Unicode line and paragraph separators become ?", () => {
    assert.equal(cleanText("a\u2028b\u2029c"), "a?b?c");
  });

  test("U+FFFD becomes ? whether it came as text or as its bytes", () => {
    assert.equal(cleanText("a\uFFFDb"), "a?b");
    assert.equal(cleanText(Buffer.from("a\uFFFDb")), "a?b");
  });

  test("lone surrogates become ?", () => {
    assert.equal(cleanText("a\uD800b\uDC00c"), "a?b?c");
    assert.equal(cleanText("x\uDBFF"), "x?");
  });

  test("a run of bytes that are not UTF-8 becomes one ?", () => {
    assert.equal(cleanText(Buffer.from([0x61, 0xff, 0xfe, 0xc0, 0x80, 0x62])), "a?b");
    assert.equal(cleanText(Buffer.from([0xff])), "?");
    // A truncated sequence at the end, and an encoded surrogate (not UTF-8 either).
    assert.equal(cleanText(Buffer.from([0x61, 0xe2, 0x82])), "a?");
    assert.equal(cleanText(Buffer.from([0x61, 0xed, 0xa0, 0x80, 0x62])), "a?b");
  });

  test("two runs of bad bytes apart become two ?", () => {
    assert.equal(cleanText(Buffer.from([0xff, 0x61, 0xff])), "?a?");
  });

  test("valid multibyte text is kept as it is", () => {
    const text = "héllo wörld, 日本語, emoji 🎉, combining é, ∑";
    assert.equal(cleanText(text), text);
    assert.equal(cleanText(Buffer.from(text)), text);
  });

  test("valid multibyte text next to bad bytes is kept", () => {
    assert.equal(
      cleanText(Buffer.concat([Buffer.from("日"), Buffer.from([0xff]), Buffer.from("🎉")])),
      "日?🎉",
    );
  });

  test("newlines are kept", () => {
    assert.equal(cleanText("a\n\nb\n"), "a\n\nb\n");
  });
});

describe("cleanLine", () => {
  test("joins the lines with a bar so the text stays on one line", () => {
    assert.equal(cleanLine("one\r\ntwo\nthree\n"), "one | two | three");
  });

  test("cleans what it joins", () => {
    assert.equal(cleanLine("a\x1b[2Jb\nc\u202E"), "a?[2Jb | c?");
  });

  test("keeps an empty text empty", () => {
    assert.equal(cleanLine(""), "");
  });
});

describe("indent", () => {
  test("puts the prefix before every line", () => {
    assert.equal(indent("a\nb\n", "  > "), "  > a\n  > b");
  });

  test("cleans the lines it indents", () => {
    assert.equal(indent(Buffer.from([0x61, 0x0d, 0x0a, 0x1b, 0x62]), "| "), "| a\n| ?b");
  });
});

describe("cutText", () => {
  test("keeps a text that fits", () => {
    assert.deepEqual(cutText("hello", 5), { text: "hello", cut: false });
  });

  test("cuts at the byte limit and says so", () => {
    assert.deepEqual(cutText("hello", 3), { text: "hel", cut: true });
  });

  test("never splits a character", () => {
    // "é" is 2 bytes, "🎉" 4: a limit inside either steps back before it.
    assert.deepEqual(cutText("aé", 2), { text: "a", cut: true });
    assert.deepEqual(cutText("a🎉", 4), { text: "a", cut: true });
    assert.deepEqual(cutText("a🎉", 5), { text: "a🎉", cut: false });
  });

  test("cuts to nothing when nothing fits", () => {
    assert.deepEqual(cutText("🎉", 3), { text: "", cut: true });
  });
});
