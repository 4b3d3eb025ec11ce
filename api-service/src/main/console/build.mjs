// Bundles src/main.ts (and the TypeScript SDK's sources it imports) into console.js, beside the page and its style
// (index.html, console.css: written there by hand, nothing to build). `node build.mjs <dir>` writes elsewhere (the
// bundle check).
import { build } from "esbuild";
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
const out = process.argv[2] ? path.resolve(process.argv[2]) : path.join(here, "../resources/io/agentrun/api/console");
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [path.join(here, "src/main.ts")],
  outfile: path.join(out, "console.js"),
  bundle: true,
  format: "iife",
  target: ["es2022"],
  minify: false,
  sourcemap: false,
  legalComments: "none",
  charset: "utf8",
  logLevel: "warning",
});
