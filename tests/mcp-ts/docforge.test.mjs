// The docforge MCP server through the official TypeScript SDK client
// (@modelcontextprotocol/sdk, what most agent hosts build on), over stdio, on copies of
// fixtures/shop: the tool list and its schemas, the envelope, a read, a paged read, the
// proposal tools from register to preview, and a structured refusal. The client checks each
// structured result against the tool's outputSchema.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, rmSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { createHash } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "..", "..");
const bin = process.env.DOCFORGE_BIN ?? join(repo, "target", "debug", "docforge");

function shop() {
  const dir = mkdtempSync(join(tmpdir(), "docforge-ts-"));
  const root = join(dir, "shop");
  cpSync(join(repo, "fixtures", "shop"), root, {
    recursive: true,
    filter: (src) => !src.includes(`${join("shop", ".docforge")}`) && !src.endsWith(join("shop", "site")),
  });
  return { dir, root };
}

async function connect(root, ...flags) {
  const transport = new StdioClientTransport({ command: bin, args: ["--project-root", root, "mcp", ...flags] });
  const client = new Client({ name: "docforge-ts-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

async function call(client, name, args = {}) {
  const r = await client.callTool({ name, arguments: args });
  return { isError: r.isError === true, body: r.structuredContent };
}

test("tools, envelope, reads and pages", async () => {
  const { dir, root } = shop();
  const client = await connect(root);
  try {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    assert.ok(names.includes("docforge_bootstrap") && names.includes("docforge_register_changes"));
    for (const t of tools) {
      assert.equal(t.inputSchema.type, "object", t.name);
      assert.ok(!JSON.stringify([t.inputSchema, t.outputSchema]).includes('"format":"uint'), t.name);
      assert.deepEqual(t.outputSchema.oneOf.map((o) => o.required), [["result"], ["error"]], t.name);
      assert.ok(t.outputSchema.properties.result.required?.length > 0, `${t.name} states its result`);
    }
    const boot = await call(client, "docforge_bootstrap");
    assert.equal(boot.isError, false);
    for (const key of ["notice", "project", "revision", "source_hash", "adapter_version", "precision", "staleness"]) {
      assert.ok(key in boot.body, key);
    }
    const node = await call(client, "docforge_get_node", { node_id: "arch.storage" });
    assert.equal(node.body.result.node.id, "arch.storage");
    assert.ok(node.body.result.source.text.includes("# Storage"));
    const seen = [];
    let cursor;
    do {
      const page = await call(client, "docforge_filter_nodes", { kind: "section", limit: 3, ...(cursor ? { cursor } : {}) });
      assert.equal(page.isError, false);
      seen.push(...page.body.result.items.map((i) => i.id));
      cursor = page.body.result.next_cursor;
    } while (cursor);
    assert.equal(new Set(seen).size, seen.length);
    assert.ok(seen.length > 5);
    // Every read tool states its result's shape; the client checks each answer against it.
    const reads = [
      ["docforge_sync", {}], ["docforge_project_info", {}], ["docforge_get_contract", {}],
      ["docforge_search", { query: "how is an order stored" }], ["docforge_backlinks", { node_id: "arch.storage" }],
      ["docforge_dependencies", { node_id: "arch.storage" }], ["docforge_impact", { node_id: "arch.storage" }],
      ["docforge_get_context", { node_id: "arch.storage" }],
      ["docforge_get_task_context", { task: "change", description: "change how orders are stored" }],
      ["docforge_validate_project", {}], ["docforge_get_generation_diff", {}],
    ];
    for (const [name, args] of reads) {
      const t = tools.find((x) => x.name === name);
      assert.ok(t.outputSchema.properties.result.required?.length > 0, `${name} has a result schema`);
      const r = await call(client, name, args);
      assert.equal(r.isError, false, `${name}: ${JSON.stringify(r.body.error)}`);
    }
    const missing = await call(client, "docforge_get_node", { node_id: "nope" });
    assert.equal(missing.isError, true);
    assert.equal(missing.body.error.code, "node_not_found");
  } finally {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a changeset from register to preview, and a conflict", async () => {
  const { dir, root } = shop();
  const client = await connect(root, "--proposal-writer", "ts-agent");
  try {
    const operations = [{ op: "node_update", node_id: "arch.storage#interfaces", body: "Interfaces, from TypeScript." }];
    const cs = await call(client, "docforge_register_changes", { title: "from the TypeScript SDK", operations });
    assert.equal(cs.isError, false, JSON.stringify(cs.body.error));
    assert.equal(cs.body.result.status, "ready");
    const v = await call(client, "docforge_validate_changeset", { changeset_id: cs.body.result.changeset_id });
    assert.equal(v.body.result.errors, 0);
    const d = await call(client, "docforge_get_changeset_diff", { changeset_id: cs.body.result.changeset_id });
    const diffs = d.body.result.records.filter((r) => r.record === "change").map((r) => r.unified_diff);
    assert.ok(diffs.some((t) => t.includes("+Interfaces, from TypeScript.")));
    const p = await call(client, "docforge_preview_changeset", { changeset_id: cs.body.result.changeset_id, view_id: "architecture" });
    assert.equal(p.isError, false, JSON.stringify(p.body.error));
    const html = readFileSync(join(root, p.body.result.preview.path));
    assert.equal(createHash("sha256").update(html).digest("hex"), p.body.result.preview.sha256);
    const again = await call(client, "docforge_register_changes", { title: "again", operations });
    assert.equal(again.isError, true);
    assert.equal(again.body.error.code, "conflict");
  } finally {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
