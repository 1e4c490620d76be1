/**
 * Agent-to-agent verification (SchemaPin §20): verify a tool schema for a calling agent, scoped
 * to the provider domains that agent trusts — the `AllowedDomains` of its AgentPin credential,
 * where an empty list means *unrestricted* — with a cap on how deep the delegation went.
 * {@linkcode verifySchemaForA2a} is `verifySchemaOffline` (`./schema`) plus the depth cap
 * ({@linkcode A2A_MAX_DELEGATION_DEPTH}) and the scope check ({@linkcode allows}); a failure
 * is `A2A_SCOPE_VIOLATION`, and an out-of-scope tool is never pinned. The `AllowedDomains`
 * helpers are those of AgentPin v0.3: {@linkcode isUnrestricted}, {@linkcode allows} and
 * {@linkcode intersect}.
 *
 * @example Verify a tool for an agent that trusts only `*.example.com`
 * ```ts
 * import { type A2aVerificationContext, verifySchemaForA2a } from "jsr:@schemapin/schemapin/a2a";
 * import { buildDiscoveryDocument } from "jsr:@schemapin/schemapin/discovery";
 * import { generateKeyPair, MemoryPinStore, signSchemaDocument } from "jsr:@schemapin/schemapin";
 *
 * const key = generateKeyPair();
 * const schema = { name: "add", description: "Adds two numbers" };
 * const caller: A2aVerificationContext = {
 *   callerAgentId: "urn:agentpin:client.example:planner",
 *   delegationDepth: 1,
 *   originatingDomain: "client.example",
 *   trustedDomains: ["*.example.com"],
 * };
 * const verify = (domain: string) =>
 *   verifySchemaForA2a(caller, {
 *     schema,
 *     signature: signSchemaDocument(schema, key, { domain }),
 *     toolId: "add",
 *     domain,
 *     discovery: buildDiscoveryDocument({ publicKey: key.publicKey, developerName: "Ex" }),
 *     pinStore: new MemoryPinStore(),
 *     trustFirstUse: true,
 *   });
 * console.log((await verify("tools.example.com")).valid); // true
 * console.log((await verify("tools.other.example")).errorCode); // A2A_SCOPE_VIOLATION
 * ```
 *
 * @module
 */

export {
  A2A_MAX_DELEGATION_DEPTH,
  type A2aVerificationContext,
  allows,
  intersect,
  isUnrestricted,
  verifySchemaForA2a,
} from "./lib/a2a/context.ts";
