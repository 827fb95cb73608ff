/** The playground page's entry (bundled by scripts/build-playground.ts): the key field, the model pickers, one pane per task. */
import { loadModels, watchPickers } from './models.js';
import { element, storedKey, storeKey } from './page.js';
import { setUpBatches } from './panes/batches.js';
import { setUpClassify } from './panes/classify.js';
import { setUpSpeak } from './panes/speak.js';
import { setUpTranscribe } from './panes/transcribe.js';
import { setUpTranslate } from './panes/translate.js';
import { setUpUsers } from './panes/users.js';

const key = element<HTMLInputElement>('api-key');
key.value = storedKey();

setUpSpeak();
setUpTranscribe();
setUpTranslate();
setUpClassify();
setUpBatches();
const users = setUpUsers();
watchPickers();

element<HTMLFormElement>('key-form').addEventListener('submit', (event) => {
  event.preventDefault();
  storeKey(key.value.trim());
  void loadModels();
});
key.addEventListener('change', () => {
  storeKey(key.value.trim());
  void loadModels();
});

void loadModels();
void users.refresh();
