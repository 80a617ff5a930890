/**
 * Failures reported in languages other than English: localised compilers, build tools, shells
 * and application logs. Each fact sits in the cut middle of a long output.
 */
import { bash, type HarmCase } from './case.js';
import { noise, text } from './noise.js';

/** A long output with the given lines in its middle. */
const around = (seed: number, ...lines: string[]): string =>
  text(noise.appLog(35, seed), lines, noise.appLog(35, seed + 1));

export const languageCases: HarmCase[] = [
  {
    name: 'German gcc Fehler',
    klass: 'language',
    ...bash('LANG=de_DE.UTF-8 make'),
    output: text(
      Array.from({ length: 35 }, (_, i) => `gcc -c src/teil_${i}.c -o build/teil_${i}.o`),
      'src/netz.c: In Funktion »verbinde«:',
      'src/netz.c:41:5: Fehler: »sockfd« wurde in diesem Gültigkeitsbereich nicht definiert',
      Array.from({ length: 35 }, (_, i) => `gcc -c src/mehr_${i}.c -o build/mehr_${i}.o`),
    ),
    keep: ['»sockfd« wurde in diesem Gültigkeitsbereich nicht definiert'],
  },
  {
    name: 'German gradle FEHLER build fehlgeschlagen',
    klass: 'language',
    ...bash('./gradlew build'),
    output: text(
      noise.gradleTasks(35, 81),
      'Build fehlgeschlagen: Aufgabe :app:compileKotlin wurde mit einer Ausnahme beendet.',
      noise.gradleTasks(35, 82),
    ),
    keep: ['Aufgabe :app:compileKotlin wurde mit einer Ausnahme beendet.'],
  },
  {
    name: 'French erreur and échec',
    klass: 'language',
    ...bash('make test'),
    output: around(
      83,
      'src/analyse.c:12:9: erreur: « taille » non déclaré (première utilisation dans cette fonction)',
      'Échec de la compilation du module analyse',
    ),
    keep: ['« taille » non déclaré', 'Échec de la compilation du module analyse'],
  },
  {
    name: 'French Windows file not found (introuvable)',
    klass: 'language',
    ...bash('copy config\\prod.ini dist\\'),
    output: around(85, 'Le fichier spécifié est introuvable : config\\prod.ini'),
    keep: ['Le fichier spécifié est introuvable'],
  },
  {
    name: 'Spanish falló',
    klass: 'language',
    ...bash('./deploy.sh'),
    output: around(87, 'La conexión con la base de datos falló: tiempo de espera agotado tras 30 s'),
    keep: ['La conexión con la base de datos falló'],
  },
  {
    name: 'Spanish no se pudo',
    klass: 'language',
    ...bash('npm run importar'),
    output: around(89, 'No se pudo abrir el archivo datos/clientes_2024.csv'),
    keep: ['No se pudo abrir el archivo datos/clientes_2024.csv'],
  },
  {
    name: 'Portuguese erro and falhou',
    klass: 'language',
    ...bash('./gradlew test'),
    output: around(91, 'FALHA: A compilação falhou com uma exceção.', '* O que deu errado: a tarefa :app:test falhou'),
    keep: ['A compilação falhou com uma exceção.', 'a tarefa :app:test falhou'],
  },
  {
    name: 'Italian errore',
    klass: 'language',
    ...bash('python importa.py'),
    output: around(93, 'errore: impossibile leggere la colonna "prezzo" alla riga 812'),
    keep: ['impossibile leggere la colonna "prezzo" alla riga 812'],
  },
  {
    name: 'Russian ошибка',
    klass: 'language',
    ...bash('1c-sync --all'),
    output: around(95, 'Ошибка: не удалось подключиться к серверу 10.0.0.5:1541'),
    keep: ['не удалось подключиться к серверу 10.0.0.5:1541'],
  },
  {
    name: 'Russian failure without the word ошибка',
    klass: 'language',
    ...bash('./run_tests.sh'),
    output: around(97, 'Тест test_оплата провален: ожидалось 100, получено 90'),
    keep: ['Тест test_оплата провален'],
  },
  {
    name: 'Chinese 错误',
    klass: 'language',
    ...bash('npm run build'),
    output: around(99, '[构建] 错误：找不到模块 "@/utils/格式化"'),
    keep: ['找不到模块 "@/utils/格式化"'],
  },
  {
    name: 'Chinese 失败 without 错误',
    klass: 'language',
    ...bash('python 同步.py'),
    output: around(101, '2024-05-02 10:31:40 [主线程] 数据库连接失败，重试次数已用完'),
    keep: ['数据库连接失败，重试次数已用完'],
  },
  {
    name: 'Traditional Chinese 錯誤',
    klass: 'language',
    ...bash('yarn build'),
    output: around(103, '錯誤：無法解析設定檔 config/應用.yaml 第 14 行'),
    keep: ['無法解析設定檔 config/應用.yaml 第 14 行'],
  },
  {
    name: 'Japanese エラー',
    klass: 'language',
    ...bash('npm test'),
    output: around(105, 'エラー: ファイル src/設定.ts が見つかりません'),
    keep: ['ファイル src/設定.ts が見つかりません'],
  },
  {
    name: 'Japanese 失敗しました',
    klass: 'language',
    ...bash('./scripts/デプロイ.sh'),
    output: around(107, 'デプロイに失敗しました: ステージング環境のヘルスチェックが応答しません'),
    keep: ['デプロイに失敗しました'],
  },
  {
    name: 'Korean 오류',
    klass: 'language',
    ...bash('gradle build'),
    output: around(109, '오류: 패키지 com.example.결제 가 존재하지 않습니다'),
    keep: ['패키지 com.example.결제 가 존재하지 않습니다'],
  },
  {
    name: 'Korean 실패',
    klass: 'language',
    ...bash('npm run e2e'),
    output: around(111, '테스트 실패: 장바구니 합계가 일치하지 않음 (기대 12000, 실제 11000)'),
    keep: ['장바구니 합계가 일치하지 않음'],
  },
  {
    name: 'Polish błąd',
    klass: 'language',
    ...bash('./import.sh'),
    output: around(113, 'Błąd: nie można otworzyć pliku faktury_2024.csv'),
    keep: ['nie można otworzyć pliku faktury_2024.csv'],
  },
  {
    name: 'Dutch mislukt',
    klass: 'language',
    ...bash('./build.sh'),
    output: around(115, 'Het bouwen van module betalingen is mislukt'),
    keep: ['Het bouwen van module betalingen is mislukt'],
  },
  {
    name: 'Turkish hata',
    klass: 'language',
    ...bash('./calistir.sh'),
    output: around(117, 'Hata: veritabanına bağlanılamadı (zaman aşımı)'),
    keep: ['veritabanına bağlanılamadı'],
  },
  {
    name: 'German apt E: line without an English word',
    klass: 'language',
    ...bash('sudo apt-get install -y libfoo-dev'),
    output: text(
      Array.from(
        { length: 35 },
        (_, i) =>
          `Holen:${i + 1} http://deb.debian.org/debian bookworm/main amd64 paket${i} amd64 1.${i}-1 [${100 + i} kB]`,
      ),
      'E: Paket libfoo-dev kann nicht gefunden werden.',
      Array.from(
        { length: 35 },
        (_, i) =>
          `Holen:${i + 36} http://deb.debian.org/debian bookworm/main amd64 mehr${i} amd64 2.${i}-1 [${200 + i} kB]`,
      ),
    ),
    keep: ['E: Paket libfoo-dev kann nicht gefunden werden.'],
  },
];
