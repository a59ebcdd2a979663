/**
 * Textual guard for the portable code: mod.ts, core/**\/*.ts, the kit (adapters/kit/) and adapters/edge/ may only use
 * web-standard globals. Complements tsconfig.core.json (which has no Node/Bun/Deno types) by also
 * catching what a type check cannot, e.g. `globalThis.Deno` behind a cast or an `any`.
 *
 * Fails on: `node:` / `bun:` / `npm:` / `jsr:` imports, bare (package) imports, `require(`,
 * and uses of `Deno.`, `Bun.`, `process.`, `Buffer`. Comments and string contents are ignored,
 * except module specifiers, which are checked.
 *
 * Usage: node scripts/check-core.ts
 * @module
 */
import { readFileSync } from "node:fs";
import process from "node:process";
import { isMain, listFiles, rel, rootPath } from "./lib.ts";

/** Files that must stay runtime-neutral. */
export function coreFiles(): string[] {
  return [
    rootPath("mod.ts"),
    ...listFiles(rootPath("core"), (n) => n.endsWith(".ts")),
    ...listFiles(rootPath("adapters", "kit"), (n) => n.endsWith(".ts")),
    ...listFiles(rootPath("adapters", "edge"), (n) => n.endsWith(".ts")),
  ];
}

/**
 * Blanks out comments and the contents of string/template literals (keeping quotes and newlines,
 * so offsets and line numbers stay valid). Template `${...}` expressions are kept as code.
 */
export function blankCommentsAndStrings(src: string): string {
  const out: string[] = [];
  let i = 0;
  const templateDepth: number[] = []; // brace depth at which each open `${` started
  let braces = 0;
  const blank = (ch: string): string => (ch === "\n" ? "\n" : " ");
  while (i < src.length) {
    const ch = src[i]!;
    const next = src[i + 1];
    if (ch === "/" && next === "/") {
      while (i < src.length && src[i] !== "\n") out.push(blank(src[i++]!));
    } else if (ch === "/" && next === "*") {
      out.push(" ", " ");
      i += 2;
      while (i < src.length && !(src[i] === "*" && src[i + 1] === "/")) out.push(blank(src[i++]!));
      if (i < src.length) {
        out.push(" ", " ");
        i += 2;
      }
    } else if (ch === "/" && startsRegex(out)) {
      // Regular expression literal: blank its body (keeps the slashes), skip flags as code.
      out.push("/");
      i++;
      let inClass = false;
      while (i < src.length && src[i] !== "\n") {
        const c = src[i]!;
        if (c === "\\") {
          out.push(" ");
          i++;
          if (i < src.length && src[i] !== "\n") {
            out.push(" ");
            i++;
          }
          continue;
        }
        if (c === "[") inClass = true;
        else if (c === "]") inClass = false;
        else if (c === "/" && !inClass) break;
        out.push(" ");
        i++;
      }
      if (src[i] === "/") out.push(src[i++]!);
    } else if (ch === "'" || ch === '"') {
      out.push(ch);
      i++;
      while (i < src.length && src[i] !== ch && src[i] !== "\n") {
        if (src[i] === "\\") out.push(blank(src[i++]!));
        if (i < src.length) out.push(blank(src[i++]!));
      }
      if (i < src.length) out.push(src[i++]!);
    } else if (ch === "`" || (ch === "}" && templateDepth.length > 0 && templateDepth.at(-1) === braces)) {
      if (ch === "}") templateDepth.pop();
      out.push(ch);
      i++;
      while (i < src.length && src[i] !== "`") {
        if (src[i] === "\\") {
          out.push(blank(src[i++]!));
          if (i < src.length) out.push(blank(src[i++]!));
          continue;
        }
        if (src[i] === "$" && src[i + 1] === "{") {
          out.push("$", "{");
          i += 2;
          templateDepth.push(braces);
          break;
        }
        out.push(blank(src[i++]!));
      }
      if (src[i] === "`") out.push(src[i++]!);
    } else {
      if (ch === "{") braces++;
      else if (ch === "}") braces--;
      out.push(ch);
      i++;
    }
  }
  return out.join("");
}

/** Whether a `/` at this point starts a regular expression (rather than being a division). */
function startsRegex(out: string[]): boolean {
  let j = out.length - 1;
  while (j >= 0 && /\s/.test(out[j]!)) j--;
  if (j < 0) return true;
  const prev = out[j]!;
  if ("(,=:[!&|?{};+-*%<>~^".includes(prev)) return true;
  // keyword before the slash: return /x/, typeof /x/, ...
  let word = "";
  while (j >= 0 && /[\w$]/.test(out[j]!)) word = out[j--]! + word;
  return ["return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw", "yield", "await"]
    .includes(word);
}

interface Rule {
  pattern: RegExp;
  message: string;
  /** Match against source with comments removed but specifiers kept (true), or with strings blanked too. */
  specifiers?: boolean;
}

const RULES: Rule[] = [
  {
    pattern: /\b(?:from|import)\s*\(?\s*["'](node|bun|npm|jsr|deno):/g,
    message: "runtime-specific module import",
    specifiers: true,
  },
  {
    pattern: /\b(?:from|import)\s*\(?\s*["'](?![./]|(?:node|bun|npm|jsr|deno):)/g,
    message: "bare (package) import; the core has no dependencies",
    specifiers: true,
  },
  { pattern: /(?<![.\w$])require\s*\(/g, message: "require()" },
  { pattern: /(?<![\w$])(?:Deno|Bun)\s*(?:\?\.|\.|\[)/g, message: "Deno/Bun global" },
  { pattern: /(?<![.\w$])process\s*(?:\?\.|\.|\[)/g, message: "Node.js `process` global" },
  { pattern: /(?<![.\w$])Buffer\b/g, message: "Node.js `Buffer`" },
  { pattern: /globalThis\s*(?:\?\.|\.)\s*(?:Deno|Bun|process|Buffer)\b/g, message: "runtime-specific global" },
  {
    pattern: /globalThis\s*\[\s*["'](?:Deno|Bun|process|Buffer)["']/g,
    message: "runtime-specific global",
    specifiers: true,
  },
];

function lineOf(src: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (src.charCodeAt(i) === 10) line++;
  return line;
}

/** Keeps module specifier strings, blanks every other comment/string. */
function keepSpecifiers(src: string, blanked: string): string {
  // Restore string literals that directly follow `from`, `import` or `import(` in the blanked text.
  return blanked.replace(
    /\b(from|import)(\s*\(?\s*)(["'])([^"'\n]*)\3/g,
    (match, kw: string, gap: string, _q: string, _body: string, offset: number) => {
      const start = offset + kw.length + gap.length;
      const end = offset + match.length;
      return kw + gap + src.slice(start, end);
    },
  );
}

/** Returns a list of "file:line: message (snippet)" problems. */
export function checkCore(files: string[] = coreFiles()): string[] {
  const problems: string[] = [];
  for (const file of files) {
    let src: string;
    try {
      src = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    const code = blankCommentsAndStrings(src);
    const withSpecifiers = keepSpecifiers(src, code);
    for (const rule of RULES) {
      const text = rule.specifiers ? withSpecifiers : code;
      for (const m of text.matchAll(rule.pattern)) {
        const line = lineOf(src, m.index);
        const snippet = src.split("\n")[line - 1]!.trim().slice(0, 100);
        problems.push(`${rel(file)}:${line}: ${rule.message}: ${snippet}`);
      }
    }
  }
  return problems;
}

if (isMain(import.meta.url)) {
  const files = coreFiles();
  const problems = checkCore(files);
  if (problems.length > 0) {
    console.error(`check-core: ${problems.length} problem(s) — the core must use web-standard globals only:`);
    for (const p of problems) console.error(`  ${p}`);
    process.exitCode = 1;
  } else {
    console.log(`check-core: OK (${files.length} files: mod.ts, core/, adapters/edge/ use web-standard globals only)`);
  }
}
