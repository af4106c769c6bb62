-- ModuleMigrationsTest: a second script of the test module.
alter table note add column author varchar(255);
