<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="fr" sourcelanguage="en">
<context>
    <name></name>
    <message>
        <source>Something went wrong ({problem}). Lantern keeps running; {details}.</source>
        <translation>Un problème est survenu ({problem}). Lantern continue de fonctionner&#xa0;; {details}.</translation>
    </message>
    <message>
        <source>Open a course bundle</source>
        <translation>Ouvrir un paquet de cours</translation>
    </message>
    <message>
        <source>Course bundles (*.sqlite)</source>
        <translation>Paquets de cours (*.sqlite)</translation>
    </message>
    <message>
        <source>Open another course bundle</source>
        <translation>Ouvrir un autre paquet de cours</translation>
    </message>
    <message>
        <source>Type a question first.</source>
        <translation>Tapez d&apos;abord une question.</translation>
    </message>
    <message>
        <source>You asked: {question}</source>
        <translation>Votre question&#xa0;: {question}</translation>
    </message>
    <message>
        <source>Searching the guides…</source>
        <translation>Recherche dans les guides…</translation>
    </message>
    <message>
        <source>Waiting for the language model to load; the question is sent as soon as it is ready…</source>
        <translation>En attente du chargement du modèle de langage&#xa0;; la question partira dès qu&apos;il sera prêt…</translation>
    </message>
    <message>
        <source>New conversation: earlier questions are forgotten.</source>
        <translation>Nouvelle conversation&#xa0;: les questions précédentes sont oubliées.</translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation>Arrêt en cours…</translation>
    </message>
    <message>
        <source>You can still search the guides (Ctrl+F).</source>
        <translation>Vous pouvez quand même chercher dans les guides (Ctrl+F).</translation>
    </message>
    <message>
        <source>no language model</source>
        <translation>pas de modèle de langage</translation>
    </message>
    <message>
        <source>The answer; Tab moves between its citation links, Enter opens one</source>
        <translation>La réponse&#xa0;; Tab passe d&apos;une référence à l&apos;autre, Entrée ouvre celle choisie</translation>
    </message>
    <message>
        <source>Note</source>
        <translation>Remarque</translation>
    </message>
    <message>
        <source>Conversation</source>
        <translation>Conversation</translation>
    </message>
    <message>
        <source>&amp;New conversation</source>
        <translation>&amp;Nouvelle conversation</translation>
    </message>
    <message>
        <source>New conversation</source>
        <translation>Nouvelle conversation</translation>
    </message>
    <message>
        <source>Forget the previous questions and clear the answer (Ctrl+N)</source>
        <translation>Oublier les questions précédentes et effacer la réponse (Ctrl+N)</translation>
    </message>
    <message>
        <source>Forget the previous questions and start over (Ctrl+N)</source>
        <translation>Oublier les questions précédentes et recommencer (Ctrl+N)</translation>
    </message>
    <message>
        <source>&amp;Copy answer</source>
        <translation>&amp;Copier la réponse</translation>
    </message>
    <message>
        <source>Copy answer</source>
        <translation>Copier la réponse</translation>
    </message>
    <message>
        <source>Copy the answer and its sources as text (Ctrl+C in the answer)</source>
        <translation>Copier la réponse et ses sources en texte (Ctrl+C dans la réponse)</translation>
    </message>
    <message>
        <source>Copy the answer with its sources written out (Ctrl+C in the answer)</source>
        <translation>Copier la réponse avec ses sources en toutes lettres (Ctrl+C dans la réponse)</translation>
    </message>
    <message>
        <source>Earlier in this conversation</source>
        <translation>Plus tôt dans cette conversation</translation>
    </message>
    <message>
        <source>Your earlier questions, newest last; choosing one shows its answer and sources again as they were given</source>
        <translation>Vos questions précédentes, la plus récente en dernier&#xa0;; en choisir une réaffiche sa réponse et ses sources telles qu&apos;elles ont été données</translation>
    </message>
    <message>
        <source>Show an earlier answer of this conversation again (Alt+E, then Up or Down)</source>
        <translation>Réafficher une réponse précédente de cette conversation (Alt+E, puis Haut ou Bas)</translation>
    </message>
    <message>
        <source>Earlier questions</source>
        <translation>Questions précédentes</translation>
    </message>
    <message>
        <source>Your question</source>
        <translation>Votre question</translation>
    </message>
    <message>
        <source>Answer</source>
        <translation>Réponse</translation>
    </message>
    <message>
        <source>Answer state</source>
        <translation>État de la réponse</translation>
    </message>
    <message>
        <source>S&amp;ources</source>
        <translation>S&amp;ources</translation>
    </message>
    <message>
        <source>Sources</source>
        <translation>Sources</translation>
    </message>
    <message>
        <source>Passages of the guides used for the answer; press Enter to open one</source>
        <translation>Passages des guides utilisés pour la réponse&#xa0;; Entrée en ouvre un</translation>
    </message>
    <message>
        <source>&amp;Question (Enter sends, Shift+Enter starts a new line)</source>
        <translation>&amp;Question (Entrée envoie, Maj+Entrée passe à la ligne)</translation>
    </message>
    <message>
        <source>Question</source>
        <translation>Question</translation>
    </message>
    <message>
        <source>Type a question about the course and press Enter; Tab then moves to the answer</source>
        <translation>Tapez une question sur le cours et appuyez sur Entrée&#xa0;; Tab passe ensuite à la réponse</translation>
    </message>
    <message>
        <source>&amp;Ask</source>
        <translation>&amp;Demander</translation>
    </message>
    <message>
        <source>Ask</source>
        <translation>Demander</translation>
    </message>
    <message>
        <source>Send the question (Enter in the question box)</source>
        <translation>Envoyer la question (Entrée dans la zone de question)</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>Arrêter</translation>
    </message>
    <message>
        <source>Stop answering</source>
        <translation>Arrêter la réponse</translation>
    </message>
    <message>
        <source>Stop the answer (Esc)</source>
        <translation>Arrêter la réponse (Échap)</translation>
    </message>
    <message>
        <source>(cited)</source>
        <translation>(citée)</translation>
    </message>
    <message>
        <source>New conversation.</source>
        <translation>Nouvelle conversation.</translation>
    </message>
    <message>
        <source>A follow-up question can refer to your last question.</source>
        <translation>Une question de suivi peut faire référence à votre dernière question.</translation>
    </message>
    <message>
        <source>A follow-up question can refer to your last {turns} questions.</source>
        <translation>Une question de suivi peut faire référence à vos {turns} dernières questions.</translation>
    </message>
    <message>
        <source>Course</source>
        <translation>Cours</translation>
    </message>
    <message>
        <source>Contents</source>
        <translation>Sommaire</translation>
    </message>
    <message>
        <source>The course guides by folder, with their headings; press Enter to open one</source>
        <translation>Les guides du cours par dossier, avec leurs titres&#xa0;; Entrée en ouvre un</translation>
    </message>
    <message>
        <source>Folder {name}</source>
        <translation>Dossier {name}</translation>
    </message>
    <message>
        <source>Guides at the top of the course</source>
        <translation>Guides à la racine du cours</translation>
    </message>
    <message>
        <source>Search the &amp;guides (works without the language model):</source>
        <translation>Chercher dans les &amp;guides (fonctionne sans le modèle de langage)&#xa0;:</translation>
    </message>
    <message>
        <source>Words or the start of words, e.g. oled blank</source>
        <translation>Des mots ou des débuts de mots, par ex. oled écran</translation>
    </message>
    <message>
        <source>Search the guides</source>
        <translation>Chercher dans les guides</translation>
    </message>
    <message>
        <source>Type words; matching sections of the guides are listed below. Press Down to reach the results.</source>
        <translation>Tapez des mots&#xa0;; les sections des guides qui correspondent s&apos;affichent dessous. Bas mène aux résultats.</translation>
    </message>
    <message>
        <source>Search results count</source>
        <translation>Nombre de résultats</translation>
    </message>
    <message>
        <source>Search results</source>
        <translation>Résultats de la recherche</translation>
    </message>
    <message>
        <source>Sections of the guides that match; press Enter to open one</source>
        <translation>Sections des guides qui correspondent&#xa0;; Entrée en ouvre une</translation>
    </message>
    <message>
        <source>{n} section matches; press Down, then Enter to open one.</source>
        <translation>{n}&#xa0;section correspond&#xa0;; appuyez sur Bas, puis Entrée pour l&apos;ouvrir.</translation>
    </message>
    <message>
        <source>{n} sections match; press Down, then Enter to open one.</source>
        <translation>{n}&#xa0;sections correspondent&#xa0;; appuyez sur Bas, puis Entrée pour en ouvrir une.</translation>
    </message>
    <message>
        <source>No section of the guides contains “{query}”. Try fewer or shorter words.</source>
        <translation>Aucune section des guides ne contient «&#xa0;{query}&#xa0;». Essayez moins de mots, ou des mots plus courts.</translation>
    </message>
    <message>
        <source>damaged</source>
        <translation>endommagé</translation>
    </message>
    <message>
        <source>needs a newer Lantern</source>
        <translation>demande un Lantern plus récent</translation>
    </message>
    <message>
        <source>older version</source>
        <translation>version plus ancienne</translation>
    </message>
    <message>
        <source>{n} guide</source>
        <translation>{n}&#xa0;guide</translation>
    </message>
    <message>
        <source>{n} guides</source>
        <translation>{n}&#xa0;guides</translation>
    </message>
    <message>
        <source>Add or update a course</source>
        <translation>Ajouter ou mettre à jour un cours</translation>
    </message>
    <message>
        <source>Install {version} into {folder}?</source>
        <translation>Installer {version} dans {folder}&#xa0;?</translation>
    </message>
    <message>
        <source>{course} {version} is already installed (same corpus version); nothing changed.</source>
        <translation>{course} {version} est déjà installé (même version du corpus)&#xa0;; rien n&apos;a changé.</translation>
    </message>
    <message>
        <source>The previous version is kept as {name}.</source>
        <translation>La version précédente est conservée sous le nom {name}.</translation>
    </message>
    <message>
        <source>Installed {course} {version}; choose it in the Course menu.</source>
        <translation>{course} {version} est installé&#xa0;; choisissez-le dans le menu Cours.</translation>
    </message>
    <message>
        <source>Lantern goes on with the version it has open.</source>
        <translation>Lantern continue avec la version ouverte.</translation>
    </message>
    <message>
        <source>The course could not be remembered for next time ({problem}).</source>
        <translation>Le cours n&apos;a pas pu être retenu pour la prochaine fois ({problem}).</translation>
    </message>
    <message>
        <source>C&amp;ourse</source>
        <translation>C&amp;ours</translation>
    </message>
    <message>
        <source>&amp;Add or update a course…</source>
        <translation>&amp;Ajouter ou mettre à jour un cours…</translation>
    </message>
    <message>
        <source>Install a course bundle file (for example from a USB stick), after checking it</source>
        <translation>Installer un fichier de paquet de cours (par exemple depuis une clé USB), après l&apos;avoir vérifié</translation>
    </message>
    <message>
        <source>Lantern — {title}</source>
        <translation>Lantern — {title}</translation>
    </message>
    <message>
        <source>Ask, contents and search</source>
        <translation>Demander, sommaire et recherche</translation>
    </message>
    <message>
        <source>Search</source>
        <translation>Recherche</translation>
    </message>
    <message>
        <source>Ask a question (Ctrl+L)</source>
        <translation>Poser une question (Ctrl+L)</translation>
    </message>
    <message>
        <source>The course&apos;s table of contents (Ctrl+T)</source>
        <translation>La table des matières du cours (Ctrl+T)</translation>
    </message>
    <message>
        <source>Search the guides, no language model needed (Ctrl+F)</source>
        <translation>Chercher dans les guides, sans modèle de langage (Ctrl+F)</translation>
    </message>
    <message>
        <source>About Lantern</source>
        <translation>À propos de Lantern</translation>
    </message>
    <message>
        <source>There is no answer to copy yet.</source>
        <translation>Il n&apos;y a pas encore de réponse à copier.</translation>
    </message>
    <message>
        <source>Answer copied with its sources.</source>
        <translation>Réponse copiée avec ses sources.</translation>
    </message>
    <message>
        <source>Settings saved.</source>
        <translation>Paramètres enregistrés.</translation>
    </message>
    <message>
        <source>&amp;Lantern</source>
        <translation>&amp;Lantern</translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation>&amp;Paramètres…</translation>
    </message>
    <message>
        <source>Course bundle, chat model, threads, font size, language</source>
        <translation>Paquet de cours, modèle de conversation, threads, taille de police, langue</translation>
    </message>
    <message>
        <source>&amp;About Lantern</source>
        <translation>À pr&amp;opos de Lantern</translation>
    </message>
    <message>
        <source>Version, course, and where the log file is</source>
        <translation>Version, cours et emplacement du journal</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Quitter</translation>
    </message>
    <message>
        <source>&amp;Conversation</source>
        <translation>&amp;Conversation</translation>
    </message>
    <message>
        <source>Ask a &amp;question</source>
        <translation>Poser une &amp;question</translation>
    </message>
    <message>
        <source>&amp;Stop the answer	Esc</source>
        <translation>&amp;Arrêter la réponse	Échap</translation>
    </message>
    <message>
        <source>&amp;Copy answer with sources</source>
        <translation>&amp;Copier la réponse avec ses sources</translation>
    </message>
    <message>
        <source>&amp;Guides</source>
        <translation>&amp;Guides</translation>
    </message>
    <message>
        <source>&amp;Search the guides</source>
        <translation>&amp;Rechercher dans les guides</translation>
    </message>
    <message>
        <source>&amp;Contents</source>
        <translation>&amp;Sommaire</translation>
    </message>
    <message>
        <source>&amp;Back</source>
        <translation>&amp;Précédent</translation>
    </message>
    <message>
        <source>&amp;Forward</source>
        <translation>S&amp;uivant</translation>
    </message>
    <message>
        <source>Lantern {version}: answers from the course guides, offline.</source>
        <translation>Lantern {version}&#xa0;: des réponses tirées des guides du cours, hors ligne.</translation>
    </message>
    <message>
        <source>Course: {title} (corpus {corpus})</source>
        <translation>Cours&#xa0;: {title} (corpus {corpus})</translation>
    </message>
    <message>
        <source>Bundle: {path}</source>
        <translation>Paquet&#xa0;: {path}</translation>
    </message>
    <message>
        <source>Log file: {path}</source>
        <translation>Journal&#xa0;: {path}</translation>
    </message>
    <message>
        <source>none (messages go to the terminal)</source>
        <translation>aucun (les messages vont au terminal)</translation>
    </message>
    <message>
        <source>image</source>
        <translation>image</translation>
    </message>
    <message>
        <source>Image not in the course: {label}</source>
        <translation>Image absente du cours&#xa0;: {label}</translation>
    </message>
    <message>
        <source>Nearest sections:</source>
        <translation>Sections les plus proches&#xa0;:</translation>
    </message>
    <message>
        <source>Sources:</source>
        <translation>Sources&#xa0;:</translation>
    </message>
    <message>
        <source>A new course bundle, chat model, thread count or language takes effect the next time Lantern starts.</source>
        <translation>Un nouveau paquet de cours, modèle de conversation, nombre de threads ou une nouvelle langue prend effet au prochain démarrage de Lantern.</translation>
    </message>
    <message>
        <source>Lantern settings</source>
        <translation>Paramètres de Lantern</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>Paramètres</translation>
    </message>
    <message>
        <source>The course bundle shipped with Lantern</source>
        <translation>Le paquet de cours livré avec Lantern</translation>
    </message>
    <message>
        <source>Course bundle file</source>
        <translation>Fichier du paquet de cours</translation>
    </message>
    <message>
        <source>Course &amp;bundle:</source>
        <translation>Paquet de &amp;cours&#xa0;:</translation>
    </message>
    <message>
        <source>Choose a course bundle</source>
        <translation>Choisir un paquet de cours</translation>
    </message>
    <message>
        <source>Course bundles (*.sqlite);;All files (*)</source>
        <translation>Paquets de cours (*.sqlite);;Tous les fichiers (*)</translation>
    </message>
    <message>
        <source>The default chat model (models/manifest.json)</source>
        <translation>Le modèle de conversation par défaut (models/manifest.json)</translation>
    </message>
    <message>
        <source>Chat model file</source>
        <translation>Fichier du modèle de conversation</translation>
    </message>
    <message>
        <source>Chat &amp;model (GGUF):</source>
        <translation>&amp;Modèle de conversation (GGUF)&#xa0;:</translation>
    </message>
    <message>
        <source>Choose a chat model</source>
        <translation>Choisir un modèle de conversation</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf);;All files (*)</source>
        <translation>Modèles GGUF (*.gguf);;Tous les fichiers (*)</translation>
    </message>
    <message>
        <source>All cores</source>
        <translation>Tous les cœurs</translation>
    </message>
    <message>
        <source>CPU threads for the language model</source>
        <translation>Threads du processeur pour le modèle de langage</translation>
    </message>
    <message>
        <source>This computer has {cores} cores; 0 uses all but one.</source>
        <translation>Cet ordinateur a {cores}&#xa0;cœurs&#xa0;; 0 les utilise tous sauf un.</translation>
    </message>
    <message>
        <source>CPU &amp;threads:</source>
        <translation>&amp;Threads du processeur&#xa0;:</translation>
    </message>
    <message>
        <source> pt</source>
        <translation>&#xa0;pt</translation>
    </message>
    <message>
        <source>Font size in points</source>
        <translation>Taille de police en points</translation>
    </message>
    <message>
        <source>&amp;Font size:</source>
        <translation>Taille de &amp;police&#xa0;:</translation>
    </message>
    <message>
        <source>The system&apos;s language</source>
        <translation>La langue du système</translation>
    </message>
    <message>
        <source>Language of the window</source>
        <translation>Langue de la fenêtre</translation>
    </message>
    <message>
        <source>The language of menus, buttons and messages; the answers are in the course&apos;s language. Applies the next time Lantern starts.</source>
        <translation>La langue des menus, boutons et messages&#xa0;; les réponses sont dans la langue du cours. S&apos;applique au prochain démarrage de Lantern.</translation>
    </message>
    <message>
        <source>Window &amp;language:</source>
        <translation>&amp;Langue de la fenêtre&#xa0;:</translation>
    </message>
    <message>
        <source>Saved in {path} (the command line reads it too).</source>
        <translation>Enregistré dans {path} (la ligne de commande le lit aussi).</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>Parcourir…</translation>
    </message>
    <message>
        <source>Browse for the {what}</source>
        <translation>Parcourir pour choisir&#xa0;: {what}</translation>
    </message>
    <message>
        <source>The settings could not be saved to {path} ({problem}); check that the folder is writable.</source>
        <translation>Les paramètres n&apos;ont pas pu être enregistrés dans {path} ({problem})&#xa0;; vérifiez que le dossier est accessible en écriture.</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>État</translation>
    </message>
    <message>
        <source>corpus {version}</source>
        <translation>corpus {version}</translation>
    </message>
    <message>
        <source>built {date}</source>
        <translation>construit le {date}</translation>
    </message>
    <message>
        <source>Corpus version {version}, built {date}</source>
        <translation>Version du corpus {version}, construit {date}</translation>
    </message>
    <message>
        <source>at an unknown time</source>
        <translation>à une date inconnue</translation>
    </message>
    <message>
        <source>Corpus version and build date</source>
        <translation>Version du corpus et date de construction</translation>
    </message>
    <message>
        <source>model: loading…</source>
        <translation>modèle&#xa0;: chargement…</translation>
    </message>
    <message>
        <source>Language model</source>
        <translation>Modèle de langage</translation>
    </message>
    <message>
        <source>Limitations</source>
        <translation>Limites</translation>
    </message>
    <message>
        <source>Loading the models</source>
        <translation>Chargement des modèles</translation>
    </message>
    <message>
        <source>Loading the models…</source>
        <translation>Chargement des modèles…</translation>
    </message>
    <message>
        <source>model: {name}</source>
        <translation>modèle&#xa0;: {name}</translation>
    </message>
    <message>
        <source>keyword-only: {reason}.</source>
        <translation>mots-clés seulement&#xa0;: {reason}.</translation>
    </message>
    <message>
        <source>search-only: the chat model could not be loaded.</source>
        <translation>recherche seule&#xa0;: le modèle de conversation n&apos;a pas pu être chargé.</translation>
    </message>
    <message>
        <source>The models could not be loaded.</source>
        <translation>Les modèles n&apos;ont pas pu être chargés.</translation>
    </message>
    <message>
        <source>the details are in {path}</source>
        <translation>les détails sont dans {path}</translation>
    </message>
    <message>
        <source>the details were printed to the terminal</source>
        <translation>les détails ont été affichés dans le terminal</translation>
    </message>
    <message>
        <source>Image not in the course</source>
        <translation>Image absente du cours</translation>
    </message>
    <message>
        <source>Guide viewer</source>
        <translation>Lecteur de guides</translation>
    </message>
    <message>
        <source>The course guide opened from a citation, the contents or a search; Alt+Left goes back, Alt+Right forward</source>
        <translation>Le guide du cours ouvert depuis une référence, le sommaire ou une recherche&#xa0;; Alt+Gauche revient en arrière, Alt+Droite avance</translation>
    </message>
    <message>
        <source>{guide} is not a guide in this course bundle.</source>
        <translation>{guide} n&apos;est pas un guide de ce paquet de cours.</translation>
    </message>
    <message>
        <source>Back</source>
        <translation>Précédent</translation>
    </message>
    <message>
        <source>Back to the previous place in the guides (Alt+Left)</source>
        <translation>Revenir à l&apos;endroit précédent dans les guides (Alt+Gauche)</translation>
    </message>
    <message>
        <source>Forward</source>
        <translation>Suivant</translation>
    </message>
    <message>
        <source>Forward (Alt+Right)</source>
        <translation>Suivant (Alt+Droite)</translation>
    </message>
    <message>
        <source>Guide: click a citation, a heading in Contents or a search result to open it here.</source>
        <translation>Guide&#xa0;: cliquez sur une référence, un titre du sommaire ou un résultat de recherche pour l&apos;ouvrir ici.</translation>
    </message>
    <message>
        <source>Open guide</source>
        <translation>Guide ouvert</translation>
    </message>
    <message>
        <source>Guide: {title}  ({path})</source>
        <translation>Guide&#xa0;: {title}  ({path})</translation>
    </message>
    <message>
        <source>Answer checked against the cited passages, with the guides&apos; own words below it. Click a number to open the cited section.</source>
        <translation>Réponse vérifiée d&apos;après les passages cités, avec les mots mêmes des guides en dessous. Cliquez sur un numéro pour ouvrir la section citée.</translation>
    </message>
    <message>
        <source>Quoted from the guides. Click a number to open the cited section.</source>
        <translation>Cité d&apos;après les guides. Cliquez sur un numéro pour ouvrir la section citée.</translation>
    </message>
    <message>
        <source>Not covered by the guides. The sources below are the closest sections; click one to open it.</source>
        <translation>Les guides n&apos;en parlent pas. Les sources ci-dessous sont les sections les plus proches&#xa0;; cliquez sur l&apos;une d&apos;elles pour l&apos;ouvrir.</translation>
    </message>
    <message>
        <source>Declined: that request isn&apos;t about this course.</source>
        <translation>Refusé&#xa0;: cette demande ne porte pas sur ce cours.</translation>
    </message>
    <message>
        <source>Declined: Lantern only answers questions about the course guides.</source>
        <translation>Refusé&#xa0;: Lantern ne répond qu&apos;aux questions sur les guides du cours.</translation>
    </message>
    <message>
        <source>Quoted from the guides. Writing a short answer; only sentences the guides confirm are added… (Esc stops; the quotes stay)</source>
        <translation>Cité d&apos;après les guides. Rédaction d&apos;une réponse courte&#xa0;; seules les phrases confirmées par les guides sont ajoutées… (Échap arrête&#xa0;; les citations restent)</translation>
    </message>
    <message>
        <source>Search only (no language model): quoted from the guides. Click a number to open the cited section.</source>
        <translation>Recherche seule (pas de modèle de langage)&#xa0;: cité d&apos;après les guides. Cliquez sur un numéro pour ouvrir la section citée.</translation>
    </message>
    <message>
        <source>Keyword search only</source>
        <translation>Recherche par mots-clés seulement</translation>
    </message>
    <message>
        <source>Search only (no language model)</source>
        <translation>Recherche seule (pas de modèle de langage)</translation>
    </message>
    <message>
        <source>Lab&apos;s model engine unavailable</source>
        <translation>Serveur de modèles de la salle indisponible</translation>
    </message>
    <message>
        <source>Lantern is loading its language model; asking waits until it is ready. You can already search the guides (Ctrl+F) or browse the contents (Ctrl+T).</source>
        <translation>Lantern charge son modèle de langage&#xa0;; une question attend qu&apos;il soit prêt. Vous pouvez déjà chercher dans les guides (Ctrl+F) ou parcourir le sommaire (Ctrl+T).</translation>
    </message>
    <message>
        <source>Lantern matches the words of your question, not their meaning, because its embedding model is missing or doesn&apos;t fit this course: use the words the guides use.</source>
        <translation>Lantern compare les mots de votre question, pas leur sens, car son modèle d&apos;embeddings manque ou ne convient pas à ce cours&#xa0;: employez les mots des guides.</translation>
    </message>
    <message>
        <source>No language model is available, so Lantern shows the most relevant passages of the guides instead of writing an answer.</source>
        <translation>Aucun modèle de langage n&apos;est disponible&#xa0;: Lantern montre les passages les plus pertinents des guides au lieu de rédiger une réponse.</translation>
    </message>
    <message>
        <source>The lab&apos;s model engine did not answer in time, so this reply comes from the model on this PC, or from the guides&apos; passages alone.</source>
        <translation>Le serveur de modèles de la salle n&apos;a pas répondu à temps&#xa0;: cette réponse vient du modèle de ce PC, ou des seuls passages des guides.</translation>
    </message>
    <message>
        <source>Stopped: this is what was ready when you pressed Stop.</source>
        <translation>Arrêté&#xa0;: voici ce qui était prêt quand vous avez appuyé sur Arrêter.</translation>
    </message>
    <message>
        <source>Lantern&apos;s work on that question did not end when you pressed Stop, so Lantern left it and is loading its models again; you can ask again in a moment.</source>
        <translation>Le travail de Lantern sur cette question ne s&apos;est pas arrêté quand vous avez appuyé sur Arrêter&#xa0;: Lantern l&apos;a abandonné et recharge ses modèles&#xa0;; vous pourrez redemander dans un instant.</translation>
    </message>
    <message>
        <source>This course was updated while Lantern was open; Lantern now uses the new version ({version}). A new conversation starts, since earlier answers cite the previous version.</source>
        <translation>Ce cours a été mis à jour pendant que Lantern était ouvert&#xa0;; Lantern utilise maintenant la nouvelle version ({version}). Une nouvelle conversation commence, car les réponses précédentes citent l&apos;ancienne version.</translation>
    </message>
    <message>
        <source>This course was updated while Lantern was open; close and reopen Lantern to use the new version.</source>
        <translation>Ce cours a été mis à jour pendant que Lantern était ouvert&#xa0;; fermez puis rouvrez Lantern pour utiliser la nouvelle version.</translation>
    </message>
    <message>
        <source>&amp;Earlier in this conversation:</source>
        <translation>Plus &amp;tôt dans cette conversation&#xa0;:</translation>
    </message>
    <message>
        <source>Choose a question to see its answer again</source>
        <translation>Choisissez une question pour revoir sa réponse</translation>
    </message>
    <message>
        <source>(latest)</source>
        <translation>(la dernière)</translation>
    </message>
    <message>
        <source>Earlier answer, {n} of {total} in this conversation, shown as it was given.</source>
        <translation>Réponse précédente, {n} sur {total} dans cette conversation, affichée telle qu&apos;elle a été donnée.</translation>
    </message>
    <message>
        <source>Your question about {title}, in your own words</source>
        <translation>Votre question sur {title}, avec vos propres mots</translation>
    </message>
    <message>
        <source>Ask a question about {title} below. The answer comes from the course guides, with numbered citations you can open.</source>
        <translation>Posez une question sur {title} ci-dessous. La réponse vient des guides du cours, avec des références numérotées que vous pouvez ouvrir.</translation>
    </message>
    <message>
        <source>under 0.01 s</source>
        <translation>moins de 0,01&#xa0;s</translation>
    </message>
    <message>
        <source>{seconds} s</source>
        <translation>{seconds}&#xa0;s</translation>
    </message>
    <message>
        <source>Passages in {time}.</source>
        <translation>Passages en {time}.</translation>
    </message>
    <message>
        <source>Passages in {time}; stopped after {total}.</source>
        <translation>Passages en {time}&#xa0;; arrêté après {total}.</translation>
    </message>
    <message>
        <source>Stopped after {total}.</source>
        <translation>Arrêté après {total}.</translation>
    </message>
    <message>
        <source>Passages in {time}; checked answer in {total}.</source>
        <translation>Passages en {time}&#xa0;; réponse vérifiée en {total}.</translation>
    </message>
    <message>
        <source>Checked answer in {total}.</source>
        <translation>Réponse vérifiée en {total}.</translation>
    </message>
    <message>
        <source>Found the passages in {time}.</source>
        <translation>Passages trouvés en {time}.</translation>
    </message>
    <message>
        <source>Passages in {time}; no checked answer to add ({total}).</source>
        <translation>Passages en {time}&#xa0;; aucune réponse vérifiée à ajouter ({total}).</translation>
    </message>
    <message>
        <source>Searched the guides in {total}: not covered.</source>
        <translation>Recherche dans les guides en {total}&#xa0;: sujet non traité.</translation>
    </message>
    <message>
        <source>Loading the models failed unexpectedly; {details}.</source>
        <translation>Le chargement des modèles a échoué de façon inattendue&#xa0;; {details}.</translation>
    </message>
    <message>
        <source>The models are not loaded, so questions cannot be answered; see the message above.</source>
        <translation>Les modèles ne sont pas chargés, donc les questions restent sans réponse&#xa0;; voyez le message ci-dessus.</translation>
    </message>
    <message>
        <source>Answering failed unexpectedly; {details}.</source>
        <translation>La réponse a échoué de façon inattendue&#xa0;; {details}.</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Fichier</translation>
    </message>
    <message>
        <source>&amp;Export conversation…</source>
        <translation>&amp;Exporter la conversation…</translation>
    </message>
    <message>
        <source>Save every answer of this conversation with its references (Markdown, HTML or PDF)</source>
        <translation>Enregistrer toutes les réponses de cette conversation avec leurs références (Markdown, HTML ou PDF)</translation>
    </message>
    <message>
        <source>Export this &amp;answer…</source>
        <translation>Exporter cette &amp;réponse…</translation>
    </message>
    <message>
        <source>Save the answer on screen with its references</source>
        <translation>Enregistrer la réponse affichée avec ses références</translation>
    </message>
    <message>
        <source>&amp;Print…</source>
        <translation>&amp;Imprimer…</translation>
    </message>
    <message>
        <source>Print this conversation with its references (a preview first)</source>
        <translation>Imprimer cette conversation avec ses références (aperçu d&apos;abord)</translation>
    </message>
    <message>
        <source>Print this a&amp;nswer…</source>
        <translation>Imprimer cette ré&amp;ponse…</translation>
    </message>
    <message>
        <source>Print the answer on screen with its references</source>
        <translation>Imprimer la réponse affichée avec ses références</translation>
    </message>
    <message>
        <source>Export conversation</source>
        <translation>Exporter la conversation</translation>
    </message>
    <message>
        <source>Export this answer</source>
        <translation>Exporter cette réponse</translation>
    </message>
    <message>
        <source>1 answer</source>
        <translation>1&#xa0;réponse</translation>
    </message>
    <message>
        <source>%n answers</source>
        <translation>%n&#xa0;réponses</translation>
    </message>
    <message>
        <source>1 reference</source>
        <translation>1&#xa0;référence</translation>
    </message>
    <message>
        <source>%n references</source>
        <translation>%n&#xa0;références</translation>
    </message>
    <message>
        <source>Saved {answers} with {references} to {name}.</source>
        <translation>{answers} et {references} enregistrées dans {name}.</translation>
    </message>
    <message>
        <source>Print preview: {title}</source>
        <translation>Aperçu avant impression&#xa0;: {title}</translation>
    </message>
    <message>
        <source>Export this answer…</source>
        <translation>Exporter cette réponse…</translation>
    </message>
    <message>
        <source>Print this answer…</source>
        <translation>Imprimer cette réponse…</translation>
    </message>
    <message>
        <source>Questions to Lantern: {course}</source>
        <translation>Questions à Lantern&#xa0;: {course}</translation>
    </message>
    <message>
        <source>Questions to Lantern</source>
        <translation>Questions à Lantern</translation>
    </message>
    <message>
        <source>(untitled course)</source>
        <translation>(cours sans titre)</translation>
    </message>
    <message>
        <source>Course: {course}. Exported {when} by Lantern, answers drawn only from the course guides.</source>
        <translation>Cours&#xa0;: {course}. Exporté le {when} par Lantern, réponses tirées uniquement des guides du cours.</translation>
    </message>
    <message>
        <source>course version {version}</source>
        <translation>version du cours {version}</translation>
    </message>
    <message>
        <source>corpus {corpus}</source>
        <translation>corpus {corpus}</translation>
    </message>
    <message>
        <source>{text}:</source>
        <translation>{text}&#xa0;:</translation>
    </message>
    <message>
        <source>Question {number}</source>
        <translation>Question {number}</translation>
    </message>
    <message>
        <source>each sentence checked against the passage it cites</source>
        <translation>chaque phrase vérifiée d&apos;après le passage qu&apos;elle cite</translation>
    </message>
    <message>
        <source>From the guides</source>
        <translation>D&apos;après les guides</translation>
    </message>
    <message>
        <source>Nearest sections</source>
        <translation>Sections les plus proches</translation>
    </message>
    <message>
        <source>References</source>
        <translation>Références</translation>
    </message>
    <message>
        <source>image: {alt}</source>
        <translation>image&#xa0;: {alt}</translation>
    </message>
    <message>
        <source>figure</source>
        <translation>figure</translation>
    </message>
    <message>
        <source>section &quot;{section}&quot;</source>
        <translation>section «&#xa0;{section}&#xa0;»</translation>
    </message>
    <message>
        <source>Cited {date}.</source>
        <translation>Cité le {date}.</translation>
    </message>
    <message>
        <source>Answered from the guides: each sentence was checked against the passage it cites.</source>
        <translation>Réponse tirée des guides&#xa0;: chaque phrase a été vérifiée d&apos;après le passage qu&apos;elle cite.</translation>
    </message>
    <message>
        <source>Quoted from the guides.</source>
        <translation>Cité d&apos;après les guides.</translation>
    </message>
    <message>
        <source>Not covered by the guides.</source>
        <translation>Non traité par les guides.</translation>
    </message>
    <message>
        <source>Declined: the request was not about this course.</source>
        <translation>Refusé&#xa0;: la demande ne portait pas sur ce cours.</translation>
    </message>
    <message>
        <source>Stopped before the answer was finished.</source>
        <translation>Arrêté avant la fin de la réponse.</translation>
    </message>
    <message>
        <source>Did this help?</source>
        <translation>Cette réponse vous a-t-elle aidé&#xa0;?</translation>
    </message>
    <message>
        <source>Thank you; your instructor will see it, without your name.</source>
        <translation>Merci&#xa0;; votre enseignant le verra, sans votre nom.</translation>
    </message>
    <message>
        <source>Thank you. (The instructor&apos;s report is off on this PC, so nothing is kept.)</source>
        <translation>Merci. (Le rapport de l&apos;enseignant est désactivé sur ce PC&#xa0;: rien n&apos;est conservé.)</translation>
    </message>
    <message>
        <source>Thank you. (Logging is paused, so it could not be kept.)</source>
        <translation>Merci. (L&apos;enregistrement est en pause&#xa0;: votre avis n&apos;a pas pu être conservé.)</translation>
    </message>
    <message>
        <source>Questions are kept on this PC for your instructor, without your name.</source>
        <translation>Les questions sont conservées sur ce PC pour votre enseignant, sans votre nom.</translation>
    </message>
    <message>
        <source>Logging for the instructor&apos;s report is paused; answers go on as usual.</source>
        <translation>L’enregistrement pour le rapport de l’enseignant est en pause&#xa0;; les réponses continuent normalement.</translation>
    </message>
    <message>
        <source>Helped</source>
        <translation>Utile</translation>
    </message>
    <message>
        <source>Tell your instructor this answer helped</source>
        <translation>Dire à votre enseignant que cette réponse vous a aidé</translation>
    </message>
    <message>
        <source>Didn&apos;t help</source>
        <translation>Pas utile</translation>
    </message>
    <message>
        <source>Tell your instructor this answer did not help</source>
        <translation>Dire à votre enseignant que cette réponse ne vous a pas aidé</translation>
    </message>
    <message>
        <source>Feedback</source>
        <translation>Votre avis</translation>
    </message>
    <message>
        <source>Instructor&apos;s report</source>
        <translation>Rapport de l&apos;enseignant</translation>
    </message>
    <message>
        <source>{guide} is not a Word, PowerPoint, OpenDocument, EPUB, notebook or PDF file; Lantern opens only those.</source>
        <translation>{guide} n&apos;est pas un fichier Word, PowerPoint, OpenDocument, EPUB, notebook ou PDF&#xa0;; Lantern n&apos;ouvre que ceux-là.</translation>
    </message>
    <message>
        <source>This course bundle does not hold the original of {guide}; ask your instructor to build it with --keep-originals.</source>
        <translation>Ce paquet de cours ne contient pas l&apos;original de {guide}&#xa0;; demandez à votre enseignant de le construire avec --keep-originals.</translation>
    </message>
    <message>
        <source>The original of {guide} in this bundle does not match the guide; ask your instructor to build the bundle again.</source>
        <translation>L&apos;original de {guide} dans ce paquet ne correspond pas au guide&#xa0;; demandez à votre enseignant de reconstruire le paquet.</translation>
    </message>
    <message>
        <source>The original of {guide} in this bundle is not a {kind} file; Lantern will not open it, so ask your instructor to build the bundle again.</source>
        <translation>L&apos;original de {guide} dans ce paquet n&apos;est pas un fichier {kind}&#xa0;; Lantern ne l&apos;ouvrira pas, demandez à votre enseignant de reconstruire le paquet.</translation>
    </message>
    <message>
        <source>Could not write a copy of {guide} to open it ({reason}); free some disk space and try again.</source>
        <translation>Impossible d&apos;écrire une copie de {guide} pour l&apos;ouvrir ({reason})&#xa0;; libérez de l&apos;espace disque et réessayez.</translation>
    </message>
    <message>
        <source>No program on this PC opens {name} files; a copy is at {path}.</source>
        <translation>Aucun programme de ce PC n&apos;ouvre les fichiers {name}&#xa0;; une copie se trouve dans {path}.</translation>
    </message>
    <message>
        <source>Open the original file</source>
        <translation>Ouvrir le fichier original</translation>
    </message>
    <message>
        <source>Open {name} in the program this PC uses for it</source>
        <translation>Ouvrir {name} dans le programme que ce PC utilise pour ce type de fichier</translation>
    </message>
    <message>
        <source>This guide&apos;s original file is not in the course bundle</source>
        <translation>Le fichier original de ce guide n&apos;est pas dans le paquet de cours</translation>
    </message>
</context>
</TS>
