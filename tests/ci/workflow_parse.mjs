// workflow_parse.mjs NPM_DIR WORKFLOW.yml: GitHub's own workflow parser
// (@actions/workflow-parser, what the Actions service and the VS Code
// extension use) reads the file, validates it against the workflow schema and
// converts it to a workflow template. Prints each error as FILE: ERROR and
// exits 1 when there is any, 0 (with the jobs and steps it found) otherwise.
import { readFileSync } from "node:fs";
import { register } from "node:module";
import { pathToFileURL } from "node:url";

const [npmDir, file] = process.argv.slice(2);
// The package imports its schema JSON without `with { type: "json" }`, which
// bundlers accept and Node.js refuses: a load hook adds the attribute.
register("data:text/javascript," + encodeURIComponent(
  `export async function load(url, context, next) {
     if (url.endsWith(".json"))
       context = { ...context, importAttributes: { type: "json" } };
     return next(url, context);
   }`));
const parser = await import(
  pathToFileURL(`${npmDir}/node_modules/@actions/workflow-parser/dist/index.js`));

const parsed = parser.parseWorkflow(
  { name: file, content: readFileSync(file, "utf8") },
  new parser.NoOperationTraceWriter());
const errors = [...parsed.context.errors.getErrors()];
let template;
if (parsed.value !== undefined) {
  template = await parser.convertWorkflowTemplate(parsed.context, parsed.value);
  for (const e of template.errors ?? [])
    if (!errors.some(x => x.message === e.Message)) errors.push({ message: e.Message });
} else if (errors.length === 0) {
  errors.push({ message: "the parser returned no workflow" });
}
for (const e of errors) console.log(`${file}: ${e.message}`);
if (errors.length) process.exit(1);
for (const job of template.jobs)
  console.log(`job ${job.id}: ${job.steps.length} steps`);
