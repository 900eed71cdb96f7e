<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="es" sourcelanguage="en">
<context>
    <name></name>
    <message>
        <source>Something went wrong ({problem}). Lantern keeps running; {details}.</source>
        <translation>Algo salió mal ({problem}). Lantern sigue funcionando; {details}.</translation>
    </message>
    <message>
        <source>Open a course bundle</source>
        <translation>Abrir un paquete de curso</translation>
    </message>
    <message>
        <source>Course bundles (*.sqlite)</source>
        <translation>Paquetes de curso (*.sqlite)</translation>
    </message>
    <message>
        <source>Open another course bundle</source>
        <translation>Abrir otro paquete de curso</translation>
    </message>
    <message>
        <source>Type a question first.</source>
        <translation>Escriba primero una pregunta.</translation>
    </message>
    <message>
        <source>You asked: {question}</source>
        <translation>Su pregunta: {question}</translation>
    </message>
    <message>
        <source>Searching the guides…</source>
        <translation>Buscando en las guías…</translation>
    </message>
    <message>
        <source>Waiting for the language model to load; the question is sent as soon as it is ready…</source>
        <translation>Esperando a que se cargue el modelo de lenguaje; la pregunta se enviará en cuanto esté listo…</translation>
    </message>
    <message>
        <source>New conversation: earlier questions are forgotten.</source>
        <translation>Nueva conversación: las preguntas anteriores se olvidan.</translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation>Deteniendo…</translation>
    </message>
    <message>
        <source>You can still search the guides (Ctrl+F).</source>
        <translation>Aún puede buscar en las guías (Ctrl+F).</translation>
    </message>
    <message>
        <source>no language model</source>
        <translation>sin modelo de lenguaje</translation>
    </message>
    <message>
        <source>The answer; Tab moves between its citation links, Enter opens one</source>
        <translation>La respuesta; Tab pasa de una referencia a otra, Intro abre la elegida</translation>
    </message>
    <message>
        <source>Note</source>
        <translation>Aviso</translation>
    </message>
    <message>
        <source>Conversation</source>
        <translation>Conversación</translation>
    </message>
    <message>
        <source>&amp;New conversation</source>
        <translation>&amp;Nueva conversación</translation>
    </message>
    <message>
        <source>New conversation</source>
        <translation>Nueva conversación</translation>
    </message>
    <message>
        <source>Forget the previous questions and clear the answer (Ctrl+N)</source>
        <translation>Olvidar las preguntas anteriores y borrar la respuesta (Ctrl+N)</translation>
    </message>
    <message>
        <source>Forget the previous questions and start over (Ctrl+N)</source>
        <translation>Olvidar las preguntas anteriores y empezar de nuevo (Ctrl+N)</translation>
    </message>
    <message>
        <source>&amp;Copy answer</source>
        <translation>&amp;Copiar la respuesta</translation>
    </message>
    <message>
        <source>Copy answer</source>
        <translation>Copiar la respuesta</translation>
    </message>
    <message>
        <source>Copy the answer and its sources as text (Ctrl+C in the answer)</source>
        <translation>Copiar la respuesta y sus fuentes como texto (Ctrl+C en la respuesta)</translation>
    </message>
    <message>
        <source>Copy the answer with its sources written out (Ctrl+C in the answer)</source>
        <translation>Copiar la respuesta con sus fuentes escritas (Ctrl+C en la respuesta)</translation>
    </message>
    <message>
        <source>Earlier in this conversation</source>
        <translation>Antes en esta conversación</translation>
    </message>
    <message>
        <source>Your earlier questions, newest last; choosing one shows its answer and sources again as they were given</source>
        <translation>Sus preguntas anteriores, la más reciente al final; al elegir una se vuelven a mostrar su respuesta y sus fuentes tal como se dieron</translation>
    </message>
    <message>
        <source>Show an earlier answer of this conversation again (Alt+E, then Up or Down)</source>
        <translation>Volver a mostrar una respuesta anterior de esta conversación (Alt+E, luego Arriba o Abajo)</translation>
    </message>
    <message>
        <source>Earlier questions</source>
        <translation>Preguntas anteriores</translation>
    </message>
    <message>
        <source>Your question</source>
        <translation>Su pregunta</translation>
    </message>
    <message>
        <source>Answer</source>
        <translation>Respuesta</translation>
    </message>
    <message>
        <source>Answer state</source>
        <translation>Estado de la respuesta</translation>
    </message>
    <message>
        <source>S&amp;ources</source>
        <translation>F&amp;uentes</translation>
    </message>
    <message>
        <source>Sources</source>
        <translation>Fuentes</translation>
    </message>
    <message>
        <source>Passages of the guides used for the answer; press Enter to open one</source>
        <translation>Pasajes de las guías usados para la respuesta; pulse Intro para abrir uno</translation>
    </message>
    <message>
        <source>&amp;Question (Enter sends, Shift+Enter starts a new line)</source>
        <translation>Pre&amp;gunta (Intro envía, Mayús+Intro empieza una línea nueva)</translation>
    </message>
    <message>
        <source>Question</source>
        <translation>Pregunta</translation>
    </message>
    <message>
        <source>Type a question about the course and press Enter; Tab then moves to the answer</source>
        <translation>Escriba una pregunta sobre el curso y pulse Intro; luego Tab pasa a la respuesta</translation>
    </message>
    <message>
        <source>&amp;Ask</source>
        <translation>&amp;Preguntar</translation>
    </message>
    <message>
        <source>Ask</source>
        <translation>Preguntar</translation>
    </message>
    <message>
        <source>Send the question (Enter in the question box)</source>
        <translation>Enviar la pregunta (Intro en el cuadro de la pregunta)</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>Detener</translation>
    </message>
    <message>
        <source>Stop answering</source>
        <translation>Dejar de responder</translation>
    </message>
    <message>
        <source>Stop the answer (Esc)</source>
        <translation>Detener la respuesta (Esc)</translation>
    </message>
    <message>
        <source>(cited)</source>
        <translation>(citada)</translation>
    </message>
    <message>
        <source>New conversation.</source>
        <translation>Nueva conversación.</translation>
    </message>
    <message>
        <source>A follow-up question can refer to your last question.</source>
        <translation>Una pregunta de seguimiento puede referirse a su última pregunta.</translation>
    </message>
    <message>
        <source>A follow-up question can refer to your last {turns} questions.</source>
        <translation>Una pregunta de seguimiento puede referirse a sus últimas {turns} preguntas.</translation>
    </message>
    <message>
        <source>Course</source>
        <translation>Curso</translation>
    </message>
    <message>
        <source>Contents</source>
        <translation>Contenido</translation>
    </message>
    <message>
        <source>The course guides by folder, with their headings; press Enter to open one</source>
        <translation>Las guías del curso por carpeta, con sus títulos; pulse Intro para abrir una</translation>
    </message>
    <message>
        <source>Folder {name}</source>
        <translation>Carpeta {name}</translation>
    </message>
    <message>
        <source>Guides at the top of the course</source>
        <translation>Guías en la raíz del curso</translation>
    </message>
    <message>
        <source>Search the &amp;guides (works without the language model):</source>
        <translation>Buscar en las &amp;guías (funciona sin el modelo de lenguaje):</translation>
    </message>
    <message>
        <source>Words or the start of words, e.g. oled blank</source>
        <translation>Palabras o comienzos de palabras, p. ej. oled pantalla</translation>
    </message>
    <message>
        <source>Search the guides</source>
        <translation>Buscar en las guías</translation>
    </message>
    <message>
        <source>Type words; matching sections of the guides are listed below. Press Down to reach the results.</source>
        <translation>Escriba palabras; las secciones de las guías que coinciden aparecen debajo. Pulse Abajo para llegar a los resultados.</translation>
    </message>
    <message>
        <source>Search results count</source>
        <translation>Número de resultados</translation>
    </message>
    <message>
        <source>Search results</source>
        <translation>Resultados de la búsqueda</translation>
    </message>
    <message>
        <source>Sections of the guides that match; press Enter to open one</source>
        <translation>Secciones de las guías que coinciden; pulse Intro para abrir una</translation>
    </message>
    <message>
        <source>{n} section matches; press Down, then Enter to open one.</source>
        <translation>{n} sección coincide; pulse Abajo y luego Intro para abrirla.</translation>
    </message>
    <message>
        <source>{n} sections match; press Down, then Enter to open one.</source>
        <translation>{n} secciones coinciden; pulse Abajo y luego Intro para abrir una.</translation>
    </message>
    <message>
        <source>No section of the guides contains “{query}”. Try fewer or shorter words.</source>
        <translation>Ninguna sección de las guías contiene «{query}». Pruebe con menos palabras o con palabras más cortas.</translation>
    </message>
    <message>
        <source>damaged</source>
        <translation>dañado</translation>
    </message>
    <message>
        <source>needs a newer Lantern</source>
        <translation>requiere un Lantern más reciente</translation>
    </message>
    <message>
        <source>older version</source>
        <translation>versión anterior</translation>
    </message>
    <message>
        <source>{n} guide</source>
        <translation>{n} guía</translation>
    </message>
    <message>
        <source>{n} guides</source>
        <translation>{n} guías</translation>
    </message>
    <message>
        <source>Add or update a course</source>
        <translation>Añadir o actualizar un curso</translation>
    </message>
    <message>
        <source>Install {version} into {folder}?</source>
        <translation>¿Instalar {version} en {folder}?</translation>
    </message>
    <message>
        <source>{course} {version} is already installed (same corpus version); nothing changed.</source>
        <translation>{course} {version} ya está instalado (misma versión del corpus); no ha cambiado nada.</translation>
    </message>
    <message>
        <source>The previous version is kept as {name}.</source>
        <translation>La versión anterior se conserva como {name}.</translation>
    </message>
    <message>
        <source>Installed {course} {version}; choose it in the Course menu.</source>
        <translation>{course} {version} instalado; elíjalo en el menú Curso.</translation>
    </message>
    <message>
        <source>Lantern goes on with the version it has open.</source>
        <translation>Lantern sigue con la versión que tiene abierta.</translation>
    </message>
    <message>
        <source>The course could not be remembered for next time ({problem}).</source>
        <translation>No se pudo recordar el curso para la próxima vez ({problem}).</translation>
    </message>
    <message>
        <source>C&amp;ourse</source>
        <translation>C&amp;urso</translation>
    </message>
    <message>
        <source>&amp;Add or update a course…</source>
        <translation>&amp;Añadir o actualizar un curso…</translation>
    </message>
    <message>
        <source>Install a course bundle file (for example from a USB stick), after checking it</source>
        <translation>Instalar un archivo de paquete de curso (por ejemplo desde una memoria USB), tras comprobarlo</translation>
    </message>
    <message>
        <source>Lantern — {title}</source>
        <translation>Lantern — {title}</translation>
    </message>
    <message>
        <source>Ask, contents and search</source>
        <translation>Preguntar, contenido y búsqueda</translation>
    </message>
    <message>
        <source>Search</source>
        <translation>Búsqueda</translation>
    </message>
    <message>
        <source>Ask a question (Ctrl+L)</source>
        <translation>Hacer una pregunta (Ctrl+L)</translation>
    </message>
    <message>
        <source>The course&apos;s table of contents (Ctrl+T)</source>
        <translation>El índice del curso (Ctrl+T)</translation>
    </message>
    <message>
        <source>Search the guides, no language model needed (Ctrl+F)</source>
        <translation>Buscar en las guías, sin necesidad de modelo de lenguaje (Ctrl+F)</translation>
    </message>
    <message>
        <source>About Lantern</source>
        <translation>Acerca de Lantern</translation>
    </message>
    <message>
        <source>There is no answer to copy yet.</source>
        <translation>Todavía no hay ninguna respuesta que copiar.</translation>
    </message>
    <message>
        <source>Answer copied with its sources.</source>
        <translation>Respuesta copiada con sus fuentes.</translation>
    </message>
    <message>
        <source>Settings saved.</source>
        <translation>Configuración guardada.</translation>
    </message>
    <message>
        <source>&amp;Lantern</source>
        <translation>&amp;Lantern</translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation>&amp;Configuración…</translation>
    </message>
    <message>
        <source>Course bundle, chat model, threads, font size, language</source>
        <translation>Paquete del curso, modelo de chat, hilos, tamaño de letra, idioma</translation>
    </message>
    <message>
        <source>&amp;About Lantern</source>
        <translation>&amp;Acerca de Lantern</translation>
    </message>
    <message>
        <source>Version, course, and where the log file is</source>
        <translation>Versión, curso y ubicación del registro</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Salir</translation>
    </message>
    <message>
        <source>&amp;Conversation</source>
        <translation>&amp;Conversación</translation>
    </message>
    <message>
        <source>Ask a &amp;question</source>
        <translation>Hacer una &amp;pregunta</translation>
    </message>
    <message>
        <source>&amp;Stop the answer	Esc</source>
        <translation>&amp;Detener la respuesta	Esc</translation>
    </message>
    <message>
        <source>&amp;Copy answer with sources</source>
        <translation>&amp;Copiar la respuesta con sus fuentes</translation>
    </message>
    <message>
        <source>&amp;Guides</source>
        <translation>&amp;Guías</translation>
    </message>
    <message>
        <source>&amp;Search the guides</source>
        <translation>&amp;Buscar en las guías</translation>
    </message>
    <message>
        <source>&amp;Contents</source>
        <translation>&amp;Contenido</translation>
    </message>
    <message>
        <source>&amp;Back</source>
        <translation>&amp;Atrás</translation>
    </message>
    <message>
        <source>&amp;Forward</source>
        <translation>A&amp;delante</translation>
    </message>
    <message>
        <source>Lantern {version}: answers from the course guides, offline.</source>
        <translation>Lantern {version}: respuestas sacadas de las guías del curso, sin conexión.</translation>
    </message>
    <message>
        <source>Course: {title} (corpus {corpus})</source>
        <translation>Curso: {title} (corpus {corpus})</translation>
    </message>
    <message>
        <source>Bundle: {path}</source>
        <translation>Paquete: {path}</translation>
    </message>
    <message>
        <source>Log file: {path}</source>
        <translation>Registro: {path}</translation>
    </message>
    <message>
        <source>none (messages go to the terminal)</source>
        <translation>ninguno (los mensajes van al terminal)</translation>
    </message>
    <message>
        <source>image</source>
        <translation>imagen</translation>
    </message>
    <message>
        <source>Image not in the course: {label}</source>
        <translation>Imagen que no está en el curso: {label}</translation>
    </message>
    <message>
        <source>Nearest sections:</source>
        <translation>Secciones más cercanas:</translation>
    </message>
    <message>
        <source>Sources:</source>
        <translation>Fuentes:</translation>
    </message>
    <message>
        <source>A new course bundle, chat model, thread count or language takes effect the next time Lantern starts.</source>
        <translation>Un nuevo paquete de curso, modelo de chat, número de hilos o idioma se aplica la próxima vez que se inicie Lantern.</translation>
    </message>
    <message>
        <source>Lantern settings</source>
        <translation>Configuración de Lantern</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>Configuración</translation>
    </message>
    <message>
        <source>The course bundle shipped with Lantern</source>
        <translation>El paquete de curso incluido con Lantern</translation>
    </message>
    <message>
        <source>Course bundle file</source>
        <translation>Archivo del paquete de curso</translation>
    </message>
    <message>
        <source>Course &amp;bundle:</source>
        <translation>Paquete del &amp;curso:</translation>
    </message>
    <message>
        <source>Choose a course bundle</source>
        <translation>Elegir un paquete de curso</translation>
    </message>
    <message>
        <source>Course bundles (*.sqlite);;All files (*)</source>
        <translation>Paquetes de curso (*.sqlite);;Todos los archivos (*)</translation>
    </message>
    <message>
        <source>The default chat model (models/manifest.json)</source>
        <translation>El modelo de chat predeterminado (models/manifest.json)</translation>
    </message>
    <message>
        <source>Chat model file</source>
        <translation>Archivo del modelo de chat</translation>
    </message>
    <message>
        <source>Chat &amp;model (GGUF):</source>
        <translation>&amp;Modelo de chat (GGUF):</translation>
    </message>
    <message>
        <source>Choose a chat model</source>
        <translation>Elegir un modelo de chat</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf);;All files (*)</source>
        <translation>Modelos GGUF (*.gguf);;Todos los archivos (*)</translation>
    </message>
    <message>
        <source>All cores</source>
        <translation>Todos los núcleos</translation>
    </message>
    <message>
        <source>CPU threads for the language model</source>
        <translation>Hilos de CPU para el modelo de lenguaje</translation>
    </message>
    <message>
        <source>This computer has {cores} cores; 0 uses all but one.</source>
        <translation>Este ordenador tiene {cores} núcleos; 0 usa todos menos uno.</translation>
    </message>
    <message>
        <source>CPU &amp;threads:</source>
        <translation>&amp;Hilos de CPU:</translation>
    </message>
    <message>
        <source> pt</source>
        <translation> pt</translation>
    </message>
    <message>
        <source>Font size in points</source>
        <translation>Tamaño de letra en puntos</translation>
    </message>
    <message>
        <source>&amp;Font size:</source>
        <translation>Tamaño de &amp;letra:</translation>
    </message>
    <message>
        <source>The system&apos;s language</source>
        <translation>El idioma del sistema</translation>
    </message>
    <message>
        <source>Language of the window</source>
        <translation>Idioma de la ventana</translation>
    </message>
    <message>
        <source>The language of menus, buttons and messages; the answers are in the course&apos;s language. Applies the next time Lantern starts.</source>
        <translation>El idioma de los menús, botones y mensajes; las respuestas están en el idioma del curso. Se aplica la próxima vez que se inicie Lantern.</translation>
    </message>
    <message>
        <source>Window &amp;language:</source>
        <translation>&amp;Idioma de la ventana:</translation>
    </message>
    <message>
        <source>Saved in {path} (the command line reads it too).</source>
        <translation>Se guarda en {path} (la línea de órdenes también lo lee).</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>Examinar…</translation>
    </message>
    <message>
        <source>Browse for the {what}</source>
        <translation>Examinar para elegir: {what}</translation>
    </message>
    <message>
        <source>The settings could not be saved to {path} ({problem}); check that the folder is writable.</source>
        <translation>No se pudo guardar la configuración en {path} ({problem}); compruebe que se puede escribir en la carpeta.</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Estado</translation>
    </message>
    <message>
        <source>corpus {version}</source>
        <translation>corpus {version}</translation>
    </message>
    <message>
        <source>built {date}</source>
        <translation>creado el {date}</translation>
    </message>
    <message>
        <source>Corpus version {version}, built {date}</source>
        <translation>Versión del corpus {version}, creado {date}</translation>
    </message>
    <message>
        <source>at an unknown time</source>
        <translation>en una fecha desconocida</translation>
    </message>
    <message>
        <source>Corpus version and build date</source>
        <translation>Versión del corpus y fecha de creación</translation>
    </message>
    <message>
        <source>model: loading…</source>
        <translation>modelo: cargando…</translation>
    </message>
    <message>
        <source>Language model</source>
        <translation>Modelo de lenguaje</translation>
    </message>
    <message>
        <source>Limitations</source>
        <translation>Limitaciones</translation>
    </message>
    <message>
        <source>Loading the models</source>
        <translation>Cargando los modelos</translation>
    </message>
    <message>
        <source>Loading the models…</source>
        <translation>Cargando los modelos…</translation>
    </message>
    <message>
        <source>model: {name}</source>
        <translation>modelo: {name}</translation>
    </message>
    <message>
        <source>keyword-only: {reason}.</source>
        <translation>solo palabras clave: {reason}.</translation>
    </message>
    <message>
        <source>search-only: the chat model could not be loaded.</source>
        <translation>solo búsqueda: no se pudo cargar el modelo de chat.</translation>
    </message>
    <message>
        <source>The models could not be loaded.</source>
        <translation>No se pudieron cargar los modelos.</translation>
    </message>
    <message>
        <source>the details are in {path}</source>
        <translation>los detalles están en {path}</translation>
    </message>
    <message>
        <source>the details were printed to the terminal</source>
        <translation>los detalles se mostraron en el terminal</translation>
    </message>
    <message>
        <source>Image not in the course</source>
        <translation>Imagen que no está en el curso</translation>
    </message>
    <message>
        <source>Guide viewer</source>
        <translation>Visor de guías</translation>
    </message>
    <message>
        <source>The course guide opened from a citation, the contents or a search; Alt+Left goes back, Alt+Right forward</source>
        <translation>La guía del curso abierta desde una referencia, el contenido o una búsqueda; Alt+Izquierda vuelve atrás, Alt+Derecha avanza</translation>
    </message>
    <message>
        <source>{guide} is not a guide in this course bundle.</source>
        <translation>{guide} no es una guía de este paquete de curso.</translation>
    </message>
    <message>
        <source>Back</source>
        <translation>Atrás</translation>
    </message>
    <message>
        <source>Back to the previous place in the guides (Alt+Left)</source>
        <translation>Volver al lugar anterior en las guías (Alt+Izquierda)</translation>
    </message>
    <message>
        <source>Forward</source>
        <translation>Adelante</translation>
    </message>
    <message>
        <source>Forward (Alt+Right)</source>
        <translation>Adelante (Alt+Derecha)</translation>
    </message>
    <message>
        <source>Guide: click a citation, a heading in Contents or a search result to open it here.</source>
        <translation>Guía: haga clic en una referencia, un título del contenido o un resultado de búsqueda para abrirlo aquí.</translation>
    </message>
    <message>
        <source>Open guide</source>
        <translation>Guía abierta</translation>
    </message>
    <message>
        <source>Guide: {title}  ({path})</source>
        <translation>Guía: {title}  ({path})</translation>
    </message>
    <message>
        <source>Answer checked against the cited passages, with the guides&apos; own words below it. Click a number to open the cited section.</source>
        <translation>Respuesta comprobada con los pasajes citados, con las palabras de las propias guías debajo. Haga clic en un número para abrir la sección citada.</translation>
    </message>
    <message>
        <source>Quoted from the guides. Click a number to open the cited section.</source>
        <translation>Citado de las guías. Haga clic en un número para abrir la sección citada.</translation>
    </message>
    <message>
        <source>Not covered by the guides. The sources below are the closest sections; click one to open it.</source>
        <translation>Las guías no lo tratan. Las fuentes de abajo son las secciones más cercanas; haga clic en una para abrirla.</translation>
    </message>
    <message>
        <source>Declined: that request isn&apos;t about this course.</source>
        <translation>Rechazado: esa petición no trata de este curso.</translation>
    </message>
    <message>
        <source>Declined: Lantern only answers questions about the course guides.</source>
        <translation>Rechazado: Lantern solo responde preguntas sobre las guías del curso.</translation>
    </message>
    <message>
        <source>Quoted from the guides. Writing a short answer; only sentences the guides confirm are added… (Esc stops; the quotes stay)</source>
        <translation>Citado de las guías. Redactando una respuesta breve; solo se añaden las frases que las guías confirman… (Esc detiene; las citas se quedan)</translation>
    </message>
    <message>
        <source>Search only (no language model): quoted from the guides. Click a number to open the cited section.</source>
        <translation>Solo búsqueda (sin modelo de lenguaje): citado de las guías. Haga clic en un número para abrir la sección citada.</translation>
    </message>
    <message>
        <source>Keyword search only</source>
        <translation>Solo búsqueda por palabras clave</translation>
    </message>
    <message>
        <source>Search only (no language model)</source>
        <translation>Solo búsqueda (sin modelo de lenguaje)</translation>
    </message>
    <message>
        <source>Lab&apos;s model engine unavailable</source>
        <translation>Servidor de modelos del aula no disponible</translation>
    </message>
    <message>
        <source>Lantern is loading its language model; asking waits until it is ready. You can already search the guides (Ctrl+F) or browse the contents (Ctrl+T).</source>
        <translation>Lantern está cargando su modelo de lenguaje; las preguntas esperan a que esté listo. Ya puede buscar en las guías (Ctrl+F) o recorrer el contenido (Ctrl+T).</translation>
    </message>
    <message>
        <source>Lantern matches the words of your question, not their meaning, because its embedding model is missing or doesn&apos;t fit this course: use the words the guides use.</source>
        <translation>Lantern compara las palabras de su pregunta, no su significado, porque su modelo de embeddings falta o no encaja con este curso: use las palabras de las guías.</translation>
    </message>
    <message>
        <source>No language model is available, so Lantern shows the most relevant passages of the guides instead of writing an answer.</source>
        <translation>No hay ningún modelo de lenguaje disponible, así que Lantern muestra los pasajes más pertinentes de las guías en lugar de redactar una respuesta.</translation>
    </message>
    <message>
        <source>The lab&apos;s model engine did not answer in time, so this reply comes from the model on this PC, or from the guides&apos; passages alone.</source>
        <translation>El servidor de modelos del aula no respondió a tiempo, así que esta respuesta viene del modelo de este PC, o solo de los pasajes de las guías.</translation>
    </message>
    <message>
        <source>Stopped: this is what was ready when you pressed Stop.</source>
        <translation>Detenido: esto es lo que estaba listo cuando pulsó Detener.</translation>
    </message>
    <message>
        <source>Lantern&apos;s work on that question did not end when you pressed Stop, so Lantern left it and is loading its models again; you can ask again in a moment.</source>
        <translation>El trabajo de Lantern en esa pregunta no terminó cuando pulsó Detener, así que Lantern lo dejó y está cargando de nuevo sus modelos; podrá volver a preguntar en un momento.</translation>
    </message>
    <message>
        <source>This course was updated while Lantern was open; Lantern now uses the new version ({version}). A new conversation starts, since earlier answers cite the previous version.</source>
        <translation>Este curso se actualizó mientras Lantern estaba abierto; Lantern usa ahora la nueva versión ({version}). Empieza una conversación nueva, porque las respuestas anteriores citan la versión previa.</translation>
    </message>
    <message>
        <source>This course was updated while Lantern was open; close and reopen Lantern to use the new version.</source>
        <translation>Este curso se actualizó mientras Lantern estaba abierto; cierre y vuelva a abrir Lantern para usar la nueva versión.</translation>
    </message>
    <message>
        <source>&amp;Earlier in this conversation:</source>
        <translation>Pr&amp;eguntas anteriores de esta conversación:</translation>
    </message>
    <message>
        <source>Choose a question to see its answer again</source>
        <translation>Elija una pregunta para volver a ver su respuesta</translation>
    </message>
    <message>
        <source>(latest)</source>
        <translation>(la última)</translation>
    </message>
    <message>
        <source>Earlier answer, {n} of {total} in this conversation, shown as it was given.</source>
        <translation>Respuesta anterior, {n} de {total} en esta conversación, mostrada tal como se dio.</translation>
    </message>
    <message>
        <source>Your question about {title}, in your own words</source>
        <translation>Su pregunta sobre {title}, con sus propias palabras</translation>
    </message>
    <message>
        <source>Ask a question about {title} below. The answer comes from the course guides, with numbered citations you can open.</source>
        <translation>Haga abajo una pregunta sobre {title}. La respuesta viene de las guías del curso, con referencias numeradas que puede abrir.</translation>
    </message>
    <message>
        <source>under 0.01 s</source>
        <translation>menos de 0,01 s</translation>
    </message>
    <message>
        <source>{seconds} s</source>
        <translation>{seconds} s</translation>
    </message>
    <message>
        <source>Passages in {time}.</source>
        <translation>Pasajes en {time}.</translation>
    </message>
    <message>
        <source>Passages in {time}; stopped after {total}.</source>
        <translation>Pasajes en {time}; detenido tras {total}.</translation>
    </message>
    <message>
        <source>Stopped after {total}.</source>
        <translation>Detenido tras {total}.</translation>
    </message>
    <message>
        <source>Passages in {time}; checked answer in {total}.</source>
        <translation>Pasajes en {time}; respuesta comprobada en {total}.</translation>
    </message>
    <message>
        <source>Checked answer in {total}.</source>
        <translation>Respuesta comprobada en {total}.</translation>
    </message>
    <message>
        <source>Found the passages in {time}.</source>
        <translation>Pasajes encontrados en {time}.</translation>
    </message>
    <message>
        <source>Passages in {time}; no checked answer to add ({total}).</source>
        <translation>Pasajes en {time}; ninguna respuesta comprobada que añadir ({total}).</translation>
    </message>
    <message>
        <source>Searched the guides in {total}: not covered.</source>
        <translation>Búsqueda en las guías en {total}: no se trata.</translation>
    </message>
    <message>
        <source>Loading the models failed unexpectedly; {details}.</source>
        <translation>La carga de los modelos falló de forma inesperada; {details}.</translation>
    </message>
    <message>
        <source>The models are not loaded, so questions cannot be answered; see the message above.</source>
        <translation>Los modelos no están cargados, así que no se pueden responder preguntas; vea el mensaje de arriba.</translation>
    </message>
    <message>
        <source>Answering failed unexpectedly; {details}.</source>
        <translation>La respuesta falló de forma inesperada; {details}.</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Archivo</translation>
    </message>
    <message>
        <source>&amp;Export conversation…</source>
        <translation>&amp;Exportar la conversación…</translation>
    </message>
    <message>
        <source>Save every answer of this conversation with its references (Markdown, HTML or PDF)</source>
        <translation>Guardar todas las respuestas de esta conversación con sus referencias (Markdown, HTML o PDF)</translation>
    </message>
    <message>
        <source>Export this &amp;answer…</source>
        <translation>Exportar esta &amp;respuesta…</translation>
    </message>
    <message>
        <source>Save the answer on screen with its references</source>
        <translation>Guardar la respuesta en pantalla con sus referencias</translation>
    </message>
    <message>
        <source>&amp;Print…</source>
        <translation>&amp;Imprimir…</translation>
    </message>
    <message>
        <source>Print this conversation with its references (a preview first)</source>
        <translation>Imprimir esta conversación con sus referencias (primero una vista previa)</translation>
    </message>
    <message>
        <source>Print this a&amp;nswer…</source>
        <translation>Imprimir esta res&amp;puesta…</translation>
    </message>
    <message>
        <source>Print the answer on screen with its references</source>
        <translation>Imprimir la respuesta en pantalla con sus referencias</translation>
    </message>
    <message>
        <source>Export conversation</source>
        <translation>Exportar la conversación</translation>
    </message>
    <message>
        <source>Export this answer</source>
        <translation>Exportar esta respuesta</translation>
    </message>
    <message>
        <source>1 answer</source>
        <translation>1 respuesta</translation>
    </message>
    <message>
        <source>%n answers</source>
        <translation>%n respuestas</translation>
    </message>
    <message>
        <source>1 reference</source>
        <translation>1 referencia</translation>
    </message>
    <message>
        <source>%n references</source>
        <translation>%n referencias</translation>
    </message>
    <message>
        <source>Saved {answers} with {references} to {name}.</source>
        <translation>Se guardaron {answers} con {references} en {name}.</translation>
    </message>
    <message>
        <source>Print preview: {title}</source>
        <translation>Vista previa de impresión: {title}</translation>
    </message>
    <message>
        <source>Export this answer…</source>
        <translation>Exportar esta respuesta…</translation>
    </message>
    <message>
        <source>Print this answer…</source>
        <translation>Imprimir esta respuesta…</translation>
    </message>
    <message>
        <source>Questions to Lantern: {course}</source>
        <translation>Preguntas a Lantern: {course}</translation>
    </message>
    <message>
        <source>Questions to Lantern</source>
        <translation>Preguntas a Lantern</translation>
    </message>
    <message>
        <source>(untitled course)</source>
        <translation>(curso sin título)</translation>
    </message>
    <message>
        <source>Course: {course}. Exported {when} by Lantern, answers drawn only from the course guides.</source>
        <translation>Curso: {course}. Exportado el {when} por Lantern, con respuestas tomadas solo de las guías del curso.</translation>
    </message>
    <message>
        <source>course version {version}</source>
        <translation>versión del curso {version}</translation>
    </message>
    <message>
        <source>corpus {corpus}</source>
        <translation>corpus {corpus}</translation>
    </message>
    <message>
        <source>{text}:</source>
        <translation>{text}:</translation>
    </message>
    <message>
        <source>Question {number}</source>
        <translation>Pregunta {number}</translation>
    </message>
    <message>
        <source>each sentence checked against the passage it cites</source>
        <translation>cada frase comprobada con el pasaje que cita</translation>
    </message>
    <message>
        <source>From the guides</source>
        <translation>Según las guías</translation>
    </message>
    <message>
        <source>Nearest sections</source>
        <translation>Secciones más cercanas</translation>
    </message>
    <message>
        <source>References</source>
        <translation>Referencias</translation>
    </message>
    <message>
        <source>image: {alt}</source>
        <translation>imagen: {alt}</translation>
    </message>
    <message>
        <source>figure</source>
        <translation>figura</translation>
    </message>
    <message>
        <source>section &quot;{section}&quot;</source>
        <translation>sección «{section}»</translation>
    </message>
    <message>
        <source>Cited {date}.</source>
        <translation>Citado el {date}.</translation>
    </message>
    <message>
        <source>Answered from the guides: each sentence was checked against the passage it cites.</source>
        <translation>Respondido a partir de las guías: cada frase se comprobó con el pasaje que cita.</translation>
    </message>
    <message>
        <source>Quoted from the guides.</source>
        <translation>Citado de las guías.</translation>
    </message>
    <message>
        <source>Not covered by the guides.</source>
        <translation>Las guías no tratan este tema.</translation>
    </message>
    <message>
        <source>Declined: the request was not about this course.</source>
        <translation>Rechazado: la petición no trataba de este curso.</translation>
    </message>
    <message>
        <source>Stopped before the answer was finished.</source>
        <translation>Detenido antes de terminar la respuesta.</translation>
    </message>
    <message>
        <source>Did this help?</source>
        <translation>¿Le ha servido esta respuesta?</translation>
    </message>
    <message>
        <source>Thank you; your instructor will see it, without your name.</source>
        <translation>Gracias; su profesor lo verá, sin su nombre.</translation>
    </message>
    <message>
        <source>Thank you. (The instructor&apos;s report is off on this PC, so nothing is kept.)</source>
        <translation>Gracias. (El informe del profesor está desactivado en este PC, así que no se guarda nada.)</translation>
    </message>
    <message>
        <source>Thank you. (Logging is paused, so it could not be kept.)</source>
        <translation>Gracias. (El registro está en pausa, así que no se pudo guardar.)</translation>
    </message>
    <message>
        <source>Questions are kept on this PC for your instructor, without your name.</source>
        <translation>Las preguntas se guardan en este PC para tu profesor, sin tu nombre.</translation>
    </message>
    <message>
        <source>Logging for the instructor&apos;s report is paused; answers go on as usual.</source>
        <translation>El registro para el informe del profesor está en pausa; las respuestas siguen como siempre.</translation>
    </message>
    <message>
        <source>Helped</source>
        <translation>Me sirvió</translation>
    </message>
    <message>
        <source>Tell your instructor this answer helped</source>
        <translation>Decir a su profesor que esta respuesta le sirvió</translation>
    </message>
    <message>
        <source>Didn&apos;t help</source>
        <translation>No me sirvió</translation>
    </message>
    <message>
        <source>Tell your instructor this answer did not help</source>
        <translation>Decir a su profesor que esta respuesta no le sirvió</translation>
    </message>
    <message>
        <source>Feedback</source>
        <translation>Su opinión</translation>
    </message>
    <message>
        <source>Instructor&apos;s report</source>
        <translation>Informe del profesor</translation>
    </message>
    <message>
        <source>{guide} is not a Word, PowerPoint, OpenDocument, EPUB, notebook or PDF file; Lantern opens only those.</source>
        <translation>{guide} no es un archivo Word, PowerPoint, OpenDocument, EPUB, cuaderno ni PDF; Lantern solo abre esos.</translation>
    </message>
    <message>
        <source>This course bundle does not hold the original of {guide}; ask your instructor to build it with --keep-originals.</source>
        <translation>Este paquete de curso no contiene el original de {guide}; pida a su profesor que lo construya con --keep-originals.</translation>
    </message>
    <message>
        <source>The original of {guide} in this bundle does not match the guide; ask your instructor to build the bundle again.</source>
        <translation>El original de {guide} en este paquete no corresponde a la guía; pida a su profesor que vuelva a construir el paquete.</translation>
    </message>
    <message>
        <source>The original of {guide} in this bundle is not a {kind} file; Lantern will not open it, so ask your instructor to build the bundle again.</source>
        <translation>El original de {guide} en este paquete no es un archivo {kind}; Lantern no lo abrirá, así que pida a su profesor que vuelva a construir el paquete.</translation>
    </message>
    <message>
        <source>Could not write a copy of {guide} to open it ({reason}); free some disk space and try again.</source>
        <translation>No se pudo escribir una copia de {guide} para abrirla ({reason}); libere espacio en disco e inténtelo de nuevo.</translation>
    </message>
    <message>
        <source>No program on this PC opens {name} files; a copy is at {path}.</source>
        <translation>Ningún programa de este PC abre archivos {name}; hay una copia en {path}.</translation>
    </message>
    <message>
        <source>Open the original file</source>
        <translation>Abrir el archivo original</translation>
    </message>
    <message>
        <source>Open {name} in the program this PC uses for it</source>
        <translation>Abrir {name} con el programa que este PC usa para ese tipo de archivo</translation>
    </message>
    <message>
        <source>This guide&apos;s original file is not in the course bundle</source>
        <translation>El archivo original de esta guía no está en el paquete de curso</translation>
    </message>
</context>
</TS>
