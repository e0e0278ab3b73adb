CREATE TABLE `reports` (
	`view` text NOT NULL,
	`params` text NOT NULL,
	`digest` text NOT NULL,
	`version` integer NOT NULL,
	`body` text NOT NULL,
	`built_at` integer NOT NULL,
	`ms` integer NOT NULL,
	PRIMARY KEY(`view`, `params`)
);
