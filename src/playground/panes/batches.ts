/** Batches: submit a JSONL file of requests or a set of audio files to transcribe, watch progress, download the results. */
import type { Batch, BatchLine } from '../../client/index.js';
import { client, element, offerDownload, PaneState } from '../page.js';

const TRANSLATE_ROUTE = /^\/v1\/engines\/[^/]+\/translate$/;

export function setUpBatches(): void {
  const state = new PaneState('batches');
  const jsonl = element<HTMLInputElement>('batches-jsonl');
  const audio = element<HTMLInputElement>('batches-audio');
  const cancel = element<HTMLButtonElement>('batches-cancel');
  let running: string | undefined;

  cancel.addEventListener('click', () => {
    if (running) void state.run('Cancelling…', async () => void (await client().batches.cancel(running!)));
  });

  element<HTMLFormElement>('batches-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void state.run('Uploading…', async () => {
      const api = client();
      let batch: Batch;
      const requests = jsonl.files?.[0];
      if (requests) {
        const text = await requests.text();
        const first = JSON.parse(text.split('\n').find((line) => line.trim() !== '') ?? '{}') as { url?: string };
        const endpoint = first.url && TRANSLATE_ROUTE.test(first.url) ? '/v1/engines/{model}/translate' : (first.url ?? '');
        const file = await api.files.upload({ file: requests, filename: requests.name, purpose: 'batch' });
        batch = await api.batches.create({ inputFileId: file.id, endpoint });
      } else if (audio.files && audio.files.length > 0) {
        const model = element<HTMLSelectElement>('batches-model').value;
        const lines: BatchLine[] = [];
        for (const recording of audio.files) {
          state.status(`Uploading ${recording.name}…`);
          const file = await api.files.upload({ file: recording, filename: recording.name, purpose: 'user_data' });
          lines.push({ custom_id: recording.name, method: 'POST', url: '/v1/audio/transcriptions', body: { model, file: file.id } });
        }
        batch = await api.batches.submit('/v1/audio/transcriptions', lines);
      } else {
        throw new Error('Choose a JSONL file of requests, or audio files to transcribe.');
      }
      running = batch.id;
      cancel.hidden = false;
      element('batches-result').hidden = false;
      const progress = element<HTMLProgressElement>('batches-progress');
      const done = await api.batches.wait(batch.id, {
        intervalMs: 1000,
        onProgress: ({ status, request_counts: counts }) => {
          progress.max = Math.max(1, counts.total);
          progress.value = counts.completed + counts.failed;
          state.status(`${status}: ${counts.completed} done, ${counts.failed} failed of ${counts.total}`);
        },
      });
      running = undefined;
      cancel.hidden = true;
      for (const [id, link, name] of [
        [done.output_file_id, 'batches-output', 'results'],
        [done.error_file_id, 'batches-errors', 'errors'],
      ] as const) {
        const anchor = element<HTMLAnchorElement>(link);
        anchor.hidden = id === undefined;
        if (id !== undefined) offerDownload(anchor, new Blob([await api.files.text(id)], { type: 'application/jsonl' }), `${done.id}-${name}.jsonl`);
      }
      const counts = done.request_counts;
      state.status(`${done.status}: ${counts.completed} done, ${counts.failed} failed of ${counts.total}.`);
    });
  });
}
