CREATE TABLE `pages` (
	`key` text PRIMARY KEY NOT NULL,
	`state` text NOT NULL,
	`body` text NOT NULL,
	`built_at` integer NOT NULL
);--> statement-breakpoint
-- the pages stored before as rows of the reports table (view `_page`) move here
INSERT INTO `pages` (`key`, `state`, `body`, `built_at`) SELECT `params`, `digest`, `body`, `built_at` FROM `reports` WHERE `view` = '_page';--> statement-breakpoint
DELETE FROM `reports` WHERE `view` = '_page';
