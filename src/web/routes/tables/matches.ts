// The match browser's tables: the questions, and the stored games of one question and two models.
import { QUERY } from '../../params.ts';
import type { Site } from '../../site.ts';
import type { Tables } from './table.ts';

export function matchTables(s: Site): Tables {
  const { check } = s;
  const { catalog } = s.data;
  return {
    games: {
      query: QUERY.match,
      needs: { params: ['question', 'a', 'b'], example: '/api/games?question=81&a=gpt-4&b=claude-v1' },
      describe: 'the stored games of one question and two models, with full judge texts; ?question=&a=&b=',
      columns: [
        'id',
        'judge',
        'turn',
        'order',
        'model1',
        'model2',
        'verdict',
        'parser',
        'promptName',
        'reply',
        'createdAt',
        'source',
      ],
      rows: async (q) =>
        (await check.match(q)).games.map((g) => ({
          ...g,
          turn: g.match.turn,
          model1: g.match.model1,
          model2: g.match.model2,
        })),
    },
    questions: {
      query: QUERY.none,
      describe: 'the questions',
      columns: ['id', 'category', 'turns'],
      rows: () => catalog.questions(),
    },
  };
}
