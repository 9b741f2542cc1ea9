/** `svc incidents review <id> [--markdown]`: an incident's review, for people, as JSON, or as Markdown. */
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { formatReview } from '../format.js';

export function registerIncidents(program: Command, ctx: Context): void {
  const incidents = program.command('incidents').description('incidents and their reviews');

  incidents
    .command('review')
    .description("an incident's review: what was written and its timeline")
    .argument('<incident>', 'incident id (inc_…)')
    .option('--markdown', 'print the review as the hub exports it (Markdown)')
    .action(async (id: string, options: { markdown?: boolean }, command: Command) => {
      const { client } = ctx.connect(command);
      if (options.markdown) {
        const file = await client.download('incidents.reviewMarkdown', { params: { id } });
        ctx.io.stdout.write(file.bytes);
        return;
      }
      const review = await client.call('incidents.review', { params: { id } });
      if (ctx.globals(command).json) ctx.json(review.data);
      else ctx.out(formatReview(review.data));
    });
}
