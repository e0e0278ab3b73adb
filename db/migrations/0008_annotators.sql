CREATE TABLE `annotations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`annotator_id` integer NOT NULL,
	`question_id` integer NOT NULL,
	`turn` integer NOT NULL,
	`model_1` text NOT NULL,
	`model_2` text NOT NULL,
	`order` text NOT NULL,
	`shown_at` integer NOT NULL,
	`choice` text,
	`reason` text,
	`answered_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `annotations_match` ON `annotations` (`annotator_id`,`question_id`,`turn`,`model_1`,`model_2`);--> statement-breakpoint
CREATE TABLE `annotators` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`token_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`used_at` integer,
	`revoked_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `annotators_name` ON `annotators` (`name`);--> statement-breakpoint
CREATE UNIQUE INDEX `annotators_token` ON `annotators` (`token_hash`);--> statement-breakpoint
CREATE UNIQUE INDEX `votes_annotator_match` ON `votes` (`voter`,`question_id`,`turn`,`model_a`,`model_b`) WHERE judge = 'annotators';