/**
 * Vercel's AI SDK (`ai`), offline: `streamText` with the mock language model of its own test utilities
 * (`ai/test`: MockLanguageModelV4, simulateReadableStream without timers) -> `toTextStreamResponse()` /
 * `toUIMessageStreamResponse()` read to the end; and an OpenAI-SSE proxy through eventsource-parser's
 * `EventSourceParserStream`. The worker imports this module after the patch, as an application would import
 * the SDK (EventSourceParserStream extends the global TransformStream when its module is evaluated).
 * @module
 */
import { jsonSchema, streamText, tool } from "ai";
import { MockLanguageModelV4, simulateReadableStream } from "ai/test";
import { EventSourceParserStream } from "eventsource-parser/stream";
import { aiDeltas, checkBytes, checksum, openAiChunks } from "../data.ts";
import { drain, type InprocRow, nativeBody, type Natives, textDecoder } from "./env.ts";

type Part = Record<string, unknown>;

/** The mock model's stream parts: metadata, `deltas` as one text block, a tool call, finish. */
export function modelParts(deltas: readonly string[]): Part[] {
  const parts: Part[] = [
    { type: "stream-start", warnings: [] },
    { type: "response-metadata", id: "resp-0", modelId: "mock-model", timestamp: new Date(0) },
    { type: "text-start", id: "text-0" },
  ];
  for (const delta of deltas) parts.push({ type: "text-delta", id: "text-0", delta });
  parts.push({ type: "text-end", id: "text-0" });
  parts.push({ type: "tool-call", toolCallId: "call-0", toolName: "weather", input: '{"city":"Zürich"}' });
  parts.push({
    type: "finish",
    finishReason: { unified: "tool-calls", raw: "tool_calls" },
    usage: {
      inputTokens: { total: 12, noCache: 12, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: deltas.length, text: deltas.length, reasoning: 0 },
    },
  });
  return parts;
}

/** `streamText` over a fresh mock model; ids and clock fixed so every run yields the same bytes. */
export function run(parts: readonly Part[]): ReturnType<typeof streamText> {
  let id = 0;
  const model = new MockLanguageModelV4({
    doStream: () =>
      Promise.resolve({
        stream: simulateReadableStream({ chunks: parts.slice(), initialDelayInMs: null, chunkDelayInMs: null }),
      } as never),
  });
  return streamText(
    {
      model,
      prompt: "What is the weather in Zürich?",
      tools: {
        weather: tool({
          description: "the weather in a city",
          inputSchema: jsonSchema<{ city: string }>({
            type: "object",
            properties: { city: { type: "string" } },
            required: ["city"],
          }),
          execute: ({ city }) => Promise.resolve({ city, celsius: 21 }),
        }),
      },
      _internal: { generateId: () => `id-${id++}`, now: () => 0 },
    } as Parameters<typeof streamText>[0],
  );
}

/** The proxy row's chain over a native body of OpenAI chunks. */
export function sseProxy(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  return body
    .pipeThrough(textDecoder())
    .pipeThrough(new EventSourceParserStream())
    .pipeThrough(
      new TransformStream<{ data: string }, string>({
        transform(event, controller) {
          if (event.data === "[DONE]") return;
          const json = JSON.parse(event.data) as { choices: { delta: { content?: string } }[] };
          const content = json.choices[0]?.delta.content;
          if (content) controller.enqueue(content);
        },
      }),
    )
    .pipeThrough(new TextEncoderStream());
}

/** Builds one of this module's rows. */
export async function build(id: string, natives: Natives): Promise<InprocRow> {
  const deltas = aiDeltas();
  switch (id) {
    case "ai-text":
    case "ai-ui": {
      const parts = modelParts(deltas);
      const once = async () => {
        const result = run(parts);
        const response = id === "ai-text"
          ? result.toTextStreamResponse()
          : result.toUIMessageStreamResponse({ generateMessageId: () => "msg-0" });
        return new Uint8Array(await response.arrayBuffer());
      };
      // the text response is the deltas; the UI message stream has no independent form, so the first run's bytes
      // (checked for its frame and every delta) are what every later run must repeat
      const encoder = new TextEncoder();
      let want: Uint8Array;
      if (id === "ai-text") want = encoder.encode(deltas.join(""));
      else {
        want = await once();
        const text = new TextDecoder().decode(want);
        if (!text.startsWith('data: {"type":"start"') || !text.endsWith("data: [DONE]\n\n")) {
          throw new Error(`ai-ui: not a UI message stream: ${text.slice(0, 60)}…${text.slice(-40)}`);
        }
        let joined = "";
        for (const line of text.split("\n")) {
          if (!line.startsWith("data: {")) continue;
          const part = JSON.parse(line.slice(6)) as { type: string; delta?: string };
          if (part.type === "text-delta") joined += part.delta;
        }
        if (joined !== deltas.join("")) throw new Error("ai-ui: the text deltas of the UI message stream differ");
      }
      const sum = checksum(want);
      return {
        async run() {
          const got = await once();
          if (got.byteLength !== want.byteLength || checksum(got) !== sum) checkBytes(got, want, id);
        },
        async verify() {
          checkBytes(await once(), want, id);
        },
      };
    }
    case "ai-sse-proxy": {
      const chunks = openAiChunks(deltas);
      const want = new TextEncoder().encode(deltas.join(""));
      const sum = checksum(want);
      const once = () => drain(sseProxy(nativeBody(natives, chunks)));
      return {
        async run() {
          const got = await once();
          if (got.byteLength !== want.byteLength || checksum(got) !== sum) checkBytes(got, want, id);
        },
        async verify() {
          checkBytes(await once(), want, id);
        },
      };
    }
  }
  throw new Error(`ai.ts has no row ${id}`);
}
